"""enzc.jax: jax.grad under jax.jit of functions calling C code, against the same
functions written in jax.numpy (float32 C builds: JAX's default precision)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from conftest import PROGRAMS, load_cached  # noqa: E402

import enzc  # noqa: E402
import enzc.jax  # noqa: E402

TOL = dict(rtol=2e-5, atol=2e-6)


@pytest.fixture(scope="module")
def lib32(enzc_cache):
    return load_cached(enzc_cache, files=[PROGRAMS / "functions.c"], flags=["-DREAL=float"])


def test_grad_under_jit_matches_jax_numpy(lib32):
    nll = enzc.jax.function(lib32.gaussian_nll)

    def reference(x, mu, sigma):
        z = (x - mu) / sigma
        return jnp.sum(0.5 * z * z + jnp.log(sigma))

    def model_c(x, mu, sigma):
        return nll(jnp.sin(x) * 2, 6, mu, sigma) ** 2

    def model_jnp(x, mu, sigma):
        return reference(jnp.sin(x) * 2, mu, sigma) ** 2

    x = jnp.linspace(-1.0, 1.5, 6, dtype=jnp.float32)
    args = (x, jnp.float32(0.2), jnp.float32(1.4))
    got = jax.jit(jax.value_and_grad(model_c, argnums=(0, 1, 2)))(*args)
    want = jax.jit(jax.value_and_grad(model_jnp, argnums=(0, 1, 2)))(*args)
    np.testing.assert_allclose(got[0], want[0], **TOL)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g, w, **TOL)


def test_array_output_and_integer_array_input(lib32):
    dense = enzc.jax.function(lib32.dense_tanh, outputs={"out": lambda a, x, b, r, c: (r,)})
    xent = enzc.jax.function(lib32.softmax_xent)
    labels = jnp.array([2, 0, 1], dtype=jnp.int32)

    def loss_c(a, x, b):
        h = dense(a, x, b, 3, 4)
        return xent(jnp.concatenate([h, h * 2, -h, h ** 2]), labels, 3, 4)

    def loss_jnp(a, x, b):
        h = jnp.tanh(a.reshape(3, 4) @ x + b)
        z = jnp.concatenate([h, h * 2, -h, h ** 2]).reshape(3, 4)
        return jnp.mean(jax.nn.logsumexp(z, axis=1) - z[jnp.arange(3), labels])

    rng = np.random.default_rng(0)
    args = tuple(jnp.asarray(rng.standard_normal(n), jnp.float32) for n in (12, 4, 3))
    got = jax.jit(jax.grad(loss_c, argnums=(0, 1, 2)))(*args)
    want = jax.jit(jax.grad(loss_jnp, argnums=(0, 1, 2)))(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **TOL)


def test_vmap_and_two_outputs(lib32):
    polar = enzc.jax.function(lib32.to_polar, outputs={"r": lambda xy, n: (n,),
                                                       "theta": lambda xy, n: (n,)})
    xy = jnp.asarray(np.random.default_rng(1).standard_normal((5, 8)), jnp.float32)
    r, theta = jax.vmap(lambda v: polar(v, 4))(xy)
    pairs = xy.reshape(5, 4, 2)
    np.testing.assert_allclose(r, jnp.hypot(pairs[..., 0], pairs[..., 1]), **TOL)
    np.testing.assert_allclose(theta, jnp.arctan2(pairs[..., 1], pairs[..., 0]), **TOL)
    g = jax.jit(jax.grad(lambda v: jnp.sum(polar(v, 4)[1] * polar(v, 4)[0])))(xy[0])
    w = jax.grad(lambda v: jnp.sum(jnp.arctan2(v[1::2], v[::2])
                                   * jnp.hypot(v[::2], v[1::2])))(xy[0])
    np.testing.assert_allclose(g, w, **TOL)
