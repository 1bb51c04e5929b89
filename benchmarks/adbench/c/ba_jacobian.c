/* Assembles the BA Jacobian in CSR form from per-observation blocks; the
 * blocks come from ba_reproj_block/ba_weight_block (hand-written or AD), the
 * assembly is the same for every tool. */
#include "adbench.h"
#include "ba.h"

#include <string.h>

void ba_jacobian_alloc(struct ba_jacobian *J, int n, int m, int p)
{
    J->nrows = 3 * p;
    J->ncols = BA_CAM * n + 3 * m + p;
    J->nnz = (2 * BA_BLOCK + 1) * p;
    J->rowptr = ab_alloc((size_t)J->nrows + 1, sizeof(int));
    J->cols = ab_alloc((size_t)J->nnz, sizeof(int));
    J->vals = ab_alloc((size_t)J->nnz, sizeof(double));
    /* Touch every page now, so no timed call pays for first-touch faults
     * (all-ones bytes: a memset of zeros after calloc may be optimized out;
     * and entries left unfilled would show as -1 / NaN). */
    memset(J->cols, 0xff, sizeof(int) * (size_t)J->nnz);
    memset(J->vals, 0xff, sizeof(double) * (size_t)J->nnz);
}

void ba_jacobian(int n, int m, int p, const double *cams, const double *X, const double *w,
                 const int *obs, const double *feats, struct ba_jacobian *J)
{
    double block[2 * BA_BLOCK];
    int nz = 0;
    for (int i = 0; i < p; i++) {
        int cam = obs[2 * i], pt = obs[2 * i + 1];
        ba_reproj_block(&cams[BA_CAM * cam], &X[3 * pt], &w[i], &feats[2 * i], block);
        for (int row = 0; row < 2; row++) {
            J->rowptr[2 * i + row] = nz;
            const double *b = &block[row * BA_BLOCK];
            for (int j = 0; j < BA_CAM; j++, nz++) {
                J->cols[nz] = BA_CAM * cam + j;
                J->vals[nz] = b[j];
            }
            for (int j = 0; j < 3; j++, nz++) {
                J->cols[nz] = BA_CAM * n + 3 * pt + j;
                J->vals[nz] = b[BA_CAM + j];
            }
            J->cols[nz] = BA_CAM * n + 3 * m + i;
            J->vals[nz++] = b[BA_CAM + 3];
        }
    }
    for (int i = 0; i < p; i++) {
        J->rowptr[2 * p + i] = nz;
        J->cols[nz] = BA_CAM * n + 3 * m + i;
        J->vals[nz++] = ba_weight_block(&w[i]);
    }
    J->rowptr[3 * p] = nz;
}
