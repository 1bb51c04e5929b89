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


def _gpt_data(V: int, T: int, C: int, L: int, B: int) -> tuple[list[float], list[list[int]], list[list[int]]]:
    """c/gpt_main.c's parameters (gains of the layer norms near 1) and token sequences."""
    rng = XorShift(2019)
    block = 12 * C * C + 13 * C
    params = [0.2 * rng.uniform() - 0.1 for _ in range((V + T) * C + L * block + 2 * C)]
    gains = [(V + T) * C + l * block + off for l in range(L) for off in (0, 4 * C * C + 6 * C)]
    for start in [*gains, (V + T) * C + L * block]:
        for i in range(C):
            params[start + i] += 1
    tokens, targets = [], []
    for _ in range(B):
        seq = [int(rng.uniform() * V) for _ in range(T + 1)]
        tokens.append(seq[:T])
        targets.append(seq[1:])
    return params, tokens, targets


def _layernorm(x: list[float], w: list[float], b: list[float]) -> list[float]:
    mean = sum(x) / len(x)
    var = sum((v - mean) ** 2 for v in x) / len(x)
    return [(v - mean) / math.sqrt(var + 1e-5) * wi + bi for v, wi, bi in zip(x, w, b)]


def _affine(x: list[float], w: list[float], bias: list[float] | None, nout: int) -> list[float]:
    n = len(x)
    return [(bias[o] if bias else 0.0) + sum(x[i] * w[o * n + i] for i in range(n)) for o in range(nout)]


def _softmax(z: list[float]) -> list[float]:
    top = max(z)
    e = [math.exp(v - top) for v in z]
    return [v / sum(e) for v in e]


def gpt_loss(V: int, T: int, C: int, L: int, H: int, B: int) -> float:
    """The mean next-token cross-entropy of c/gpt.c's model, position by position."""
    p, tokens, targets = _gpt_data(V, T, C, L, B)
    hs, total = C // H, 0.0

    def take(start: int, n: int) -> list[float]:
        return p[start:start + n]

    for b in range(B):
        xs = [[p[tok * C + i] + p[V * C + t * C + i] for i in range(C)] for t, tok in enumerate(tokens[b])]
        for l in range(L):
            o = (V + T) * C + l * (12 * C * C + 13 * C)
            ln1w, ln1b = take(o, C), take(o + C, C)
            qkvw, qkvb = take(o + 2 * C, 3 * C * C), take(o + 2 * C + 3 * C * C, 3 * C)
            o += 5 * C + 3 * C * C
            projw, projb = take(o, C * C), take(o + C * C, C)
            o += C * C + C
            ln2w, ln2b = take(o, C), take(o + C, C)
            fcw, fcb = take(o + 2 * C, 4 * C * C), take(o + 2 * C + 4 * C * C, 4 * C)
            o += 6 * C + 4 * C * C
            fcprojw, fcprojb = take(o, 4 * C * C), take(o + 4 * C * C, C)
            qkv = [_affine(_layernorm(x, ln1w, ln1b), qkvw, qkvb, 3 * C) for x in xs]
            ys = []
            for t in range(T):
                y = []
                for h in range(H):
                    q = qkv[t][h * hs:(h + 1) * hs]
                    scores = [sum(qi * ki for qi, ki in zip(q, qkv[u][C + h * hs:C + (h + 1) * hs]))
                              / math.sqrt(hs) for u in range(t + 1)]
                    w = _softmax(scores)
                    y += [sum(w[u] * qkv[u][2 * C + h * hs + i] for u in range(t + 1)) for i in range(hs)]
                ys.append(y)
            xs = [[a + c for a, c in zip(x, _affine(y, projw, projb, C))] for x, y in zip(xs, ys)]
            for t, x in enumerate(xs):
                hid = _affine(_layernorm(x, ln2w, ln2b), fcw, fcb, 4 * C)
                act = [0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))
                       for v in hid]
                xs[t] = [a + c for a, c in zip(x, _affine(act, fcprojw, fcprojb, C))]
        f = (V + T) * C + L * (12 * C * C + 13 * C)
        for t, x in enumerate(xs):
            logits = _affine(_layernorm(x, take(f, C), take(f + C, C)), p, None, V)
            total -= math.log(_softmax(logits)[targets[b][t]])
    return total / (B * T)
