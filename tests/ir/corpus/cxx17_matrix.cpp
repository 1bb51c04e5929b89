// A small dense linear-algebra library: a Matrix class template with operator
// overloading, LU decomposition with partial pivoting, solve, determinant and a
// power iteration; the loop nests become vectorizable code at -O2/-O3.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

template <typename T, int N>
class Matrix {
public:
    Matrix() { std::memset(a_, 0, sizeof a_); }
    static Matrix identity() {
        Matrix m;
        for (int i = 0; i < N; i++)
            m(i, i) = T(1);
        return m;
    }
    T &operator()(int i, int j) { return a_[i][j]; }
    const T &operator()(int i, int j) const { return a_[i][j]; }
    Matrix operator*(const Matrix &o) const {
        Matrix r;
        for (int i = 0; i < N; i++)
            for (int k = 0; k < N; k++) {
                T aik = a_[i][k];
                for (int j = 0; j < N; j++)
                    r.a_[i][j] += aik * o.a_[k][j];
            }
        return r;
    }
    Matrix operator+(const Matrix &o) const {
        Matrix r;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                r.a_[i][j] = a_[i][j] + o.a_[i][j];
        return r;
    }
    void apply(const T *x, T *y) const {
        for (int i = 0; i < N; i++) {
            T s = 0;
            for (int j = 0; j < N; j++)
                s += a_[i][j] * x[j];
            y[i] = s;
        }
    }
    Matrix transposed() const {
        Matrix r;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                r.a_[j][i] = a_[i][j];
        return r;
    }
private:
    T a_[N][N];
};

template <typename T, int N>
struct LU {
    Matrix<T, N> lu;
    int perm[N];
    int sign = 1;
    bool singular = false;

    explicit LU(Matrix<T, N> m) : lu(m) {
        for (int i = 0; i < N; i++)
            perm[i] = i;
        for (int k = 0; k < N; k++) {
            int p = k;
            for (int i = k + 1; i < N; i++)
                if (std::fabs(lu(i, k)) > std::fabs(lu(p, k)))
                    p = i;
            if (lu(p, k) == T(0)) {
                singular = true;
                return;
            }
            if (p != k) {
                for (int j = 0; j < N; j++) {
                    T t = lu(k, j);
                    lu(k, j) = lu(p, j);
                    lu(p, j) = t;
                }
                int t = perm[k]; perm[k] = perm[p]; perm[p] = t;
                sign = -sign;
            }
            for (int i = k + 1; i < N; i++) {
                lu(i, k) /= lu(k, k);
                for (int j = k + 1; j < N; j++)
                    lu(i, j) -= lu(i, k) * lu(k, j);
            }
        }
    }
    T determinant() const {
        T d = T(sign);
        for (int i = 0; i < N; i++)
            d *= lu(i, i);
        return singular ? T(0) : d;
    }
    void solve(const T *b, T *x) const {
        T y[N];
        for (int i = 0; i < N; i++) {
            T s = b[perm[i]];
            for (int j = 0; j < i; j++)
                s -= lu(i, j) * y[j];
            y[i] = s;
        }
        for (int i = N - 1; i >= 0; i--) {
            T s = y[i];
            for (int j = i + 1; j < N; j++)
                s -= lu(i, j) * x[j];
            x[i] = s / lu(i, i);
        }
    }
};

template <typename T, int N>
T power_iteration(const Matrix<T, N> &m, int iters) {
    T v[N], w[N], lambda = 0;
    for (int i = 0; i < N; i++)
        v[i] = T(1);
    for (int it = 0; it < iters; it++) {
        m.apply(v, w);
        T norm = 0;
        for (int i = 0; i < N; i++)
            norm += w[i] * w[i];
        norm = std::sqrt(norm);
        for (int i = 0; i < N; i++)
            v[i] = w[i] / norm;
        lambda = norm;
    }
    return lambda;
}

int main(int argc, char **) {
    constexpr int N = 5;
    Matrix<double, N> a;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a(i, j) = 1.0 / (i + j + 1) + (i == j ? argc : 0);
    auto sym = a + a.transposed();
    auto prod = sym * Matrix<double, N>::identity();
    LU<double, N> lu(prod);
    double b[N] = { 1, 2, 3, 4, 5 }, x[N];
    lu.solve(b, x);
    Matrix<float, 3> fm = Matrix<float, 3>::identity();
    fm(0, 2) = 2.0f;
    std::printf("%g %g %g %g\n", lu.determinant(), x[0], power_iteration(sym, 50), double(power_iteration(fm * fm, 10)));
    return 0;
}
