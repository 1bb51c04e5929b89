/* BA: bundle adjustment reprojection and weight errors (ADBench's
 * definition).  A camera is 11 numbers: Rodrigues rotation r (3), centre C
 * (3), focal length f, principal point (u0, v0), radial distortion k1 k2. */
#ifndef BA_H
#define BA_H

#define BA_CAM 11
#define BA_BLOCK 15 /* columns of one observation's block: camera, point, weight */

void ba_reproj_error(const double *cam, const double *X, const double *w, const double *feat,
                     double *err);
void ba_weight_error(const double *w, double *err);

/* Observation i sees camera obs[2i] and point obs[2i+1]. */
void ba_objective(int n, int m, int p, const double *cams, const double *X, const double *w,
                  const int *obs, const double *feats, double *reproj_err, double *w_err);

/* d(reproj err)/d(cam, X, w): 2 x 15, row-major. */
void ba_reproj_block(const double *cam, const double *X, const double *w, const double *feat,
                     double block[2 * BA_BLOCK]);
/* d(weight err)/d(w). */
double ba_weight_block(const double *w);

/* The sparse Jacobian, rows = 2p reprojection errors then p weight errors,
 * columns = 11n camera, 3m point, p weight parameters. */
struct ba_jacobian {
    int nrows, ncols, nnz;
    int *rowptr, *cols;
    double *vals;
};
void ba_jacobian_alloc(struct ba_jacobian *J, int n, int m, int p);
void ba_jacobian(int n, int m, int p, const double *cams, const double *X, const double *w,
                 const int *obs, const double *feats, struct ba_jacobian *J);

#endif
