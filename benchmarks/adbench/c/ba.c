/* BA objective: per observation, rotate the point into the camera frame,
 * project, distort radially, scale by the weight. */
#include "ba.h"

#include <math.h>

static double ba_dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void ba_cross3(const double *a, const double *b, double *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* y = R(r) z by Rodrigues' formula; first order when r is exactly zero. */
static void ba_rotate(const double *r, const double *z, double *y)
{
    double t2 = ba_dot3(r, r);
    double rz[3];
    if (t2 != 0) {
        double theta = sqrt(t2), c = cos(theta), s = sin(theta);
        double v[3] = {r[0] / theta, r[1] / theta, r[2] / theta};
        ba_cross3(v, z, rz);
        double vz = ba_dot3(v, z) * (1 - c);
        for (int i = 0; i < 3; i++)
            y[i] = z[i] * c + rz[i] * s + v[i] * vz;
    } else {
        ba_cross3(r, z, rz);
        for (int i = 0; i < 3; i++)
            y[i] = z[i] + rz[i];
    }
}

void ba_reproj_error(const double *cam, const double *X, const double *w, const double *feat,
                     double *err)
{
    double z[3], y[3];
    for (int i = 0; i < 3; i++)
        z[i] = X[i] - cam[3 + i];
    ba_rotate(cam, z, y);
    double u[2] = {y[0] / y[2], y[1] / y[2]};
    double rho = u[0] * u[0] + u[1] * u[1];
    double distortion = 1 + cam[9] * rho + cam[10] * rho * rho;
    for (int i = 0; i < 2; i++)
        err[i] = *w * (cam[6] * distortion * u[i] + cam[7 + i] - feat[i]);
}

void ba_weight_error(const double *w, double *err)
{
    *err = 1 - *w * *w;
}

void ba_objective(int n, int m, int p, const double *cams, const double *X, const double *w,
                  const int *obs, const double *feats, double *reproj_err, double *w_err)
{
    (void)n;
    (void)m;
    for (int i = 0; i < p; i++)
        ba_reproj_error(&cams[BA_CAM * obs[2 * i]], &X[3 * obs[2 * i + 1]], &w[i], &feats[2 * i],
                        &reproj_err[2 * i]);
    for (int i = 0; i < p; i++)
        ba_weight_error(&w[i], &w_err[i]);
}
