// An object-like struct holding function pointers ("vtable" in C): a shape's area
// and perimeter functions, selected per object at run time.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

typedef struct Shape Shape;
typedef struct {
    double (*area)(const double *dims);
    double (*perimeter)(const double *dims);
} ShapeOps;
struct Shape {
    const ShapeOps *ops;
    int offset; /* index of this shape's dimensions */
};

static double rect_area(const double *d) { return d[0] * d[1]; }
static double rect_perim(const double *d) { return 2 * (d[0] + d[1]); }
static double circ_area(const double *d) { return M_PI * d[0] * d[0]; }
static double circ_perim(const double *d) { return 2 * M_PI * d[0]; }
static const ShapeOps RECT = {rect_area, rect_perim}, CIRC = {circ_area, circ_perim};

double score(const double *dims, const Shape *shapes, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        const double *d = dims + shapes[i].offset;
        s += shapes[i].ops->area(d) / shapes[i].ops->perimeter(d);
    }
    return s;
}

int main(void) {
    /* rect (w,h) at 0, circle r at 2, rect at 3, circle at 5 */
    double dims[6] = {2.0, 3.0, 1.5, 0.5, 4.0, 0.8}, dd[6] = {0};
    Shape shapes[4] = {{&RECT, 0}, {&CIRC, 2}, {&RECT, 3}, {&CIRC, 5}};
    __enzyme_autodiff((void *)score, enzyme_dup, dims, dd, enzyme_const, shapes, enzyme_const, 4);
    /* rect: wh / (2(w+h)): d/dw = h^2 / (2 (w+h)^2); circle: r/2: d/dr = 1/2 */
    double w = dims[0], h = dims[1], w2 = dims[3], h2 = dims[4];
    printf("grad d_w %.17g %.17g\n", dd[0], h * h / (2 * (w + h) * (w + h)));
    printf("grad d_h %.17g %.17g\n", dd[1], w * w / (2 * (w + h) * (w + h)));
    printf("grad d_r %.17g %.17g\n", dd[2], 0.5);
    printf("grad d_w2 %.17g %.17g\n", dd[3], h2 * h2 / (2 * (w2 + h2) * (w2 + h2)));
    printf("grad d_h2 %.17g %.17g\n", dd[4], w2 * w2 / (2 * (w2 + h2) * (w2 + h2)));
    printf("grad d_r2 %.17g %.17g\n", dd[5], 0.5);
    return 0;
}
