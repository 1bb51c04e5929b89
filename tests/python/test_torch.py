"""enzc.torch: gradcheck on C functions, torch.compile, and a C-coded layer trained
for 200 steps against the same model in torch ops."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import enzc.torch  # noqa: E402


def f64(*shape: int, seed: int = 0, scale: float = 1.0):
    g = torch.Generator().manual_seed(seed)
    return (scale * torch.randn(shape, generator=g, dtype=torch.float64)).requires_grad_()


def test_gradcheck_five_functions(functions_f64):
    lib = functions_f64
    nll = enzc.torch.function(lib.gaussian_nll)
    assert torch.autograd.gradcheck(lambda x, mu, s: nll(x, 6, mu, s),
                                    (f64(6), f64(seed=1), torch.tensor(1.3, dtype=torch.float64,
                                                                       requires_grad=True)))
    dense = enzc.torch.function(lib.dense_tanh, outputs={"out": lambda a, x, b, r, c: (r,)})
    assert torch.autograd.gradcheck(lambda a, x, b: dense(a, x, b, 3, 4),
                                    (f64(12, scale=0.5), f64(4, seed=2), f64(3, seed=3)))
    polar = enzc.torch.function(lib.to_polar, outputs={"r": lambda xy, n: (n,),
                                                       "theta": lambda xy, n: (n,)})
    assert torch.autograd.gradcheck(lambda xy: polar(xy, 4), (f64(8, seed=4),))
    length = enzc.torch.function(lib.path_length)
    assert torch.autograd.gradcheck(lambda p: length(p, 5), (f64(5, 2, seed=5),))
    xent = enzc.torch.function(lib.softmax_xent)
    labels = torch.tensor([0, 3, 1], dtype=torch.int32)
    assert torch.autograd.gradcheck(lambda z: xent(z, labels, 3, 4), (f64(12, seed=6),))
    axpy = enzc.torch.function(lib.square_axpy, outputs={"y": "x"})
    with pytest.raises(ValueError, match="'y' needs a shape|'y' names"):
        enzc.torch.function(lib.square_axpy, outputs={"y": None})
    out = axpy(0.5, f64(5), 5)  # y is an output: allocated as zeros, y = 0.5 x
    assert out.shape == (5,)


def test_batched_calls(functions_f64):
    dense = enzc.torch.function(functions_f64.dense_tanh,
                                outputs={"out": lambda a, x, b, r, c: (r,)}, batched=("x",))
    a, xs, b = f64(12, scale=0.5), f64(7, 4, seed=1), f64(3, seed=2)
    out = dense(a, xs, b, 3, 4)
    assert out.shape == (7, 3)
    torch.testing.assert_close(out, torch.tanh(xs @ a.reshape(3, 4).T + b))
    assert torch.autograd.gradcheck(lambda a, xs, b: dense(a, xs, b, 3, 4), (a, xs, b))


def test_inside_torch_compile(functions_f64):
    nll = enzc.torch.function(functions_f64.gaussian_nll)

    def model(x, mu):
        return nll(torch.sin(x), 6, mu, 1.5) * 2 + (x * x).sum()

    compiled = torch.compile(model, fullgraph=True)  # no graph break: an opaque operator
    x, mu = f64(6), f64(seed=1)
    got = compiled(x, mu)
    got.backward()
    gx, gmu = x.grad.clone(), mu.grad.clone()
    x.grad, mu.grad = None, None
    want = model(x, mu)
    want.backward()
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(gx, x.grad)
    torch.testing.assert_close(gmu, mu.grad)


SOURCE = r"""
#include <math.h>
/* mean squared error of a one-hidden-layer tanh network, w1: hidden x in, w2: hidden */
double mlp_mse(const double *w1, const double *w2, const double *x, const double *y,
               int samples, int in, int hidden) {
    double loss = 0;
    for (int s = 0; s < samples; s++) {
        double pred = 0;
        for (int h = 0; h < hidden; h++) {
            double a = 0;
            for (int i = 0; i < in; i++) a += w1[h * in + i] * x[s * in + i];
            pred += w2[h] * tanh(a);
        }
        loss += (pred - y[s]) * (pred - y[s]);
    }
    return loss / samples;
}
"""


def test_training_200_steps_matches_torch_ops(enzc_cache):
    lib = enzc.load(SOURCE)
    loss_c = enzc.torch.function(lib.mlp_mse)
    g = torch.Generator().manual_seed(0)
    samples, n_in, hidden = 64, 3, 8
    x = torch.randn(samples, n_in, generator=g, dtype=torch.float64)
    y = torch.sin(x.sum(dim=1))

    def torch_loss(w1, w2):
        return ((torch.tanh(x @ w1.reshape(hidden, n_in).T) @ w2 - y) ** 2).mean()

    def train(loss_fn):
        gen = torch.Generator().manual_seed(1)
        w1 = (0.5 * torch.randn(hidden * n_in, generator=gen, dtype=torch.float64)).requires_grad_()
        w2 = (0.5 * torch.randn(hidden, generator=gen, dtype=torch.float64)).requires_grad_()
        opt = torch.optim.Adam([w1, w2], lr=0.02)
        first = None
        for _ in range(200):
            opt.zero_grad()
            loss = loss_fn(w1, w2)
            first = first if first is not None else loss.item()
            loss.backward()
            opt.step()
        return first, loss_fn(w1, w2).item(), w1.detach()

    first_c, last_c, w_c = train(lambda w1, w2: loss_c(w1, w2, x, y, samples, n_in, hidden))
    first_t, last_t, w_t = train(torch_loss)
    assert first_c == pytest.approx(first_t, rel=1e-12)
    assert last_c < first_c / 10  # the model fits: a tenth of the initial loss or less
    assert last_c == pytest.approx(last_t, rel=1e-8)
    torch.testing.assert_close(w_c, w_t, rtol=1e-8, atol=1e-10)
    assert np.isfinite(last_c)
