"""Independent pure-Python evaluations of the synthetic benchmarks' objectives
(FFT by the naive DFT, the ODE integrators, the Brusselator), to check that the
C programs compute what docs/benchmarks.md says they do.  Inputs are drawn with
the same generator as c/adbench.c (xorshift64*), reimplemented here."""

from __future__ import annotations

import cmath
import math

MASK = (1 << 64) - 1


class XorShift:
    """c/adbench.c's ab_rng: xorshift64*, top 53 bits as a double in [0, 1)."""

    def __init__(self, seed: int) -> None:
        self.state = seed or 0x9E3779B97F4A7C15

    def uniform(self) -> float:
        x = self.state
        x ^= x >> 12
        x ^= (x << 25) & MASK
        x ^= x >> 27
        self.state = x
        return (((x * 0x2545F4914F6CDD1D) & MASK) >> 11) * 2.0**-53


def fft_loss(n: int) -> float:
    rng = XorShift(1965)
    x = [2 * rng.uniform() - 1 for _ in range(2 * n)]
    z = [complex(x[2 * j], x[2 * j + 1]) for j in range(n)]
    total = 0.0
    for k in range(n):
        xk = sum(z[j] * cmath.exp(-2j * math.pi * j * k / n) for j in range(n))
        total += math.log(1 + abs(xk) ** 2)
    return total / n


def _ring_rhs(t: float, y: list[float], k: list[float]) -> list[float]:
    n = len(y)
    return [-k[i] * y[i] - 0.1 * y[i] ** 3 + 0.5 * math.sin(y[(i + 1) % n]) + 0.2 * math.cos(t) for i in range(n)]


def _axpy(a: list[float], s: float, b: list[float]) -> list[float]:
    return [ai + s * bi for ai, bi in zip(a, b, strict=True)]


def ode_loss(n: int, steps: int, method: str, dt: float = 0.01) -> float:
    rng = XorShift(20201)
    y, k = [], []
    for _ in range(n):
        y.append(2 * rng.uniform() - 1)
        k.append(0.5 + rng.uniform())
    for s in range(steps):
        t = s * dt
        if method == "euler":
            y = _axpy(y, dt, _ring_rhs(t, y, k))
        else:
            k1 = _ring_rhs(t, y, k)
            k2 = _ring_rhs(t + dt / 2, _axpy(y, dt / 2, k1), k)
            k3 = _ring_rhs(t + dt / 2, _axpy(y, dt / 2, k2), k)
            k4 = _ring_rhs(t + dt, _axpy(y, dt, k3), k)
            y = [y[i] + dt / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]) for i in range(n)]
    return sum(v * v for v in y)


def bruss_loss(N: int, steps: int) -> float:
    a, b, alpha = 1.0, 3.4, 0.001
    dt = min(0.01, 0.2 / (N * N) / alpha)
    u = [[22 * (j / N * (1 - j / N)) ** 1.5 for i in range(N)] for j in range(N)]
    v = [[27 * (i / N * (1 - i / N)) ** 1.5 for i in range(N)] for j in range(N)]

    def lap(f: list[list[float]], i: int, j: int) -> float:
        return f[j][i - 1] + f[j][(i + 1) % N] + f[j - 1][i] + f[(j + 1) % N][i] - 4 * f[j][i]

    for s in range(steps):
        t = s * dt
        un = [[0.0] * N for _ in range(N)]
        vn = [[0.0] * N for _ in range(N)]
        for j in range(N):
            for i in range(N):
                x, y = i / N - 0.3, j / N - 0.6
                force = 5.0 if t >= 0.1 and x * x + y * y <= 0.01 else 0.0
                uuv = u[j][i] ** 2 * v[j][i]
                un[j][i] = u[j][i] + dt * (a + uuv - (b + 1) * u[j][i] + alpha * N * N * lap(u, i, j) + force)
                vn[j][i] = v[j][i] + dt * (b * u[j][i] - uuv + alpha * N * N * lap(v, i, j))
        u, v = un, vn
    return sum(u[j][i] ** 2 + v[j][i] ** 2 for j in range(N) for i in range(N)) / (N * N)
