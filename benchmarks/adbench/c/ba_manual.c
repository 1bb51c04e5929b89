/* Hand-written BA block derivatives by the chain rule:
 *   err = w (f L(u) u + c0 - feat),  u = (y0, y1) / y2,  y = R(r) (X - C).
 * With A = d err / d y (2x3): d/dr = A dY/dr, d/dX = A R, d/dC = -A R. */
#include "ba.h"

#include <math.h>

static void ba_manual_cross3(const double *a, const double *b, double *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* y = R(r) z, with dy_dr[i][j] = d y_i / d r_j and rot[i][j] = d y_i / d z_j,
 * following ba_rotate's two branches. */
static void ba_manual_rotate(const double *r, const double *z, double y[3], double dy_dr[3][3],
                             double rot[3][3])
{
    double t2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if (t2 == 0) {
        double rz[3];
        ba_manual_cross3(r, z, rz);
        for (int i = 0; i < 3; i++)
            y[i] = z[i] + rz[i];
        for (int j = 0; j < 3; j++) {
            double e[3] = {0, 0, 0}, ez[3];
            e[j] = 1;
            ba_manual_cross3(e, z, ez);
            for (int i = 0; i < 3; i++)
                dy_dr[i][j] = ez[i];
        }
        double skew[3][3] = {{0, -r[2], r[1]}, {r[2], 0, -r[0]}, {-r[1], r[0], 0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                rot[i][j] = (i == j) + skew[i][j];
        return;
    }
    double theta = sqrt(t2), c = cos(theta), s = sin(theta);
    double v[3] = {r[0] / theta, r[1] / theta, r[2] / theta};
    double vxz[3];
    ba_manual_cross3(v, z, vxz);
    double vz = v[0] * z[0] + v[1] * z[1] + v[2] * z[2];
    for (int i = 0; i < 3; i++)
        y[i] = c * z[i] + s * vxz[i] + (1 - c) * vz * v[i];
    double skew[3][3] = {{0, -v[2], v[1]}, {v[2], 0, -v[0]}, {-v[1], v[0], 0}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            rot[i][j] = c * (i == j) + s * skew[i][j] + (1 - c) * v[i] * v[j];
    for (int j = 0; j < 3; j++) {
        double dv[3], dvxz[3]; /* dv = d v / d r_j */
        for (int i = 0; i < 3; i++)
            dv[i] = ((i == j) - v[i] * v[j]) / theta;
        ba_manual_cross3(dv, z, dvxz);
        double dvz = dv[0] * z[0] + dv[1] * z[1] + dv[2] * z[2];
        for (int i = 0; i < 3; i++)
            dy_dr[i][j] = -s * v[j] * z[i] + c * v[j] * vxz[i] + s * dvxz[i] +
                          s * v[j] * vz * v[i] + (1 - c) * (dvz * v[i] + vz * dv[i]);
    }
}

void ba_reproj_block(const double *cam, const double *X, const double *w, const double *feat,
                     double block[2 * BA_BLOCK])
{
    double z[3], y[3], dy_dr[3][3], rot[3][3];
    for (int i = 0; i < 3; i++)
        z[i] = X[i] - cam[3 + i];
    ba_manual_rotate(cam, z, y, dy_dr, rot);

    double f = cam[6], k1 = cam[9], k2 = cam[10], wt = *w;
    double u[2] = {y[0] / y[2], y[1] / y[2]};
    double du_dy[2][3] = {{1 / y[2], 0, -y[0] / (y[2] * y[2])},
                          {0, 1 / y[2], -y[1] / (y[2] * y[2])}};
    double rho = u[0] * u[0] + u[1] * u[1];
    double dist = 1 + k1 * rho + k2 * rho * rho;
    double ddist = 2 * (k1 + 2 * k2 * rho); /* d dist / d u_a = ddist u_a */

    for (int a = 0; a < 2; a++) {
        double *row = &block[a * BA_BLOCK];
        double A[3] = {0, 0, 0}; /* d err_a / d y */
        for (int b = 0; b < 2; b++) {
            double g = wt * f * ((a == b) * dist + ddist * u[a] * u[b]);
            for (int j = 0; j < 3; j++)
                A[j] += g * du_dy[b][j];
        }
        for (int j = 0; j < 3; j++) {
            double dr = 0, dz = 0;
            for (int i = 0; i < 3; i++) {
                dr += A[i] * dy_dr[i][j];
                dz += A[i] * rot[i][j];
            }
            row[j] = dr;
            row[3 + j] = -dz;
            row[BA_CAM + j] = dz;
        }
        row[6] = wt * dist * u[a];
        row[7] = a == 0 ? wt : 0;
        row[8] = a == 1 ? wt : 0;
        row[9] = wt * f * rho * u[a];
        row[10] = wt * f * rho * rho * u[a];
        row[BA_CAM + 3] = f * dist * u[a] + cam[7 + a] - feat[a];
    }
}

double ba_weight_block(const double *w)
{
    return -2 * *w;
}
