// Forward mode declared as a C++ template, so the call is to a mangled name
// containing __enzyme_fwddiff; arguments keep their types (no C promotions).
// tol: rel=1e-12 abs=1e-14
// grads: 2
#include <cstdio>

template <typename R, typename... T> extern R __enzyme_fwddiff(void *, T...);

double cube(double x) { return x * x * x; }
float cubef(float x) { return x * x * x; }

int main() {
    double d = __enzyme_fwddiff<double>((void *)cube, 2.0, 1.0);
    float f = __enzyme_fwddiff<float>((void *)cubef, 2.0f, 0.5f);
    std::printf("grad cube'@2 %.17g %.17g\n", d, 12.0);
    std::printf("grad cubef'@2*0.5 %.17g %.17g\n", (double)f, 6.0);
    return 0;
}
