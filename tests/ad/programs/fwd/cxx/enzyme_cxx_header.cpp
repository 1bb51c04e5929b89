// The C++ interface <enzyme/enzyme>: enzyme::autodiff<Mode>(f, Active/Duplicated/
// Const arguments...) in reverse, reverse-with-primal and forward mode, results as
// enzyme::tuple, against the analytic derivatives.
// tol: rel=1e-12 abs=1e-14
// grads: 10
// flags: -std=c++17
#include <cmath>
#include <cstdio>
#include <enzyme/enzyme>

double prod_sin(double x, double y) { return std::sin(x) * y; }

void scale(const double *in, double *out, double s) {
    for (int i = 0; i < 3; i++) out[i] = in[i] * in[i] * s;
}

int main() {
    double x = 0.6, y = 2.5;
    auto r = enzyme::autodiff<enzyme::Reverse>(prod_sin, enzyme::Active<double>(x), enzyme::Active<double>(y));
    std::printf("grad rev_dx %.17g %.17g\n", enzyme::get<0>(enzyme::get<0>(r)), std::cos(x) * y);
    std::printf("grad rev_dy %.17g %.17g\n", enzyme::get<1>(enzyme::get<0>(r)), std::sin(x));

    auto rp = enzyme::autodiff<enzyme::ReverseWithPrimal>(prod_sin, enzyme::Active<double>(x), enzyme::Const<double>(y));
    std::printf("grad revp_dx %.17g %.17g\n", enzyme::get<0>(enzyme::get<0>(rp)), std::cos(x) * y);
    std::printf("grad revp_result %.17g %.17g\n", enzyme::get<1>(rp), std::sin(x) * y);

    auto t = enzyme::autodiff<enzyme::Forward>(prod_sin, enzyme::Duplicated<double>(x, 1.0), enzyme::Const<double>(y));
    std::printf("grad fwd_dx %.17g %.17g\n", enzyme::get<0>(t), std::cos(x) * y);

    auto tp = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(
        prod_sin, enzyme::Duplicated<double>(x, 0.0), enzyme::Duplicated<double>(y, 1.0));
    std::printf("grad fwdp_result %.17g %.17g\n", enzyme::get<0>(tp), std::sin(x) * y);
    std::printf("grad fwdp_dy %.17g %.17g\n", enzyme::get<1>(tp), std::sin(x));

    double in[3] = {1.0, -2.0, 0.5}, din[3] = {0, 0, 0}, out[3], dout[3] = {1, 1, 1};
    auto s = enzyme::autodiff<enzyme::Reverse>(scale, enzyme::Duplicated<const double *>(in, din),
                                               enzyme::Duplicated<double *>(out, dout), enzyme::Active<double>(3.0));
    double ds = 0;
    for (int i = 0; i < 3; i++) ds += in[i] * in[i];
    std::printf("grad scale_ds %.17g %.17g\n", enzyme::get<0>(enzyme::get<0>(s)), ds);
    std::printf("grad scale_din0 %.17g %.17g\n", din[0], 2 * in[0] * 3.0);
    std::printf("grad scale_din1 %.17g %.17g\n", din[1], 2 * in[1] * 3.0);
    return 0;
}
