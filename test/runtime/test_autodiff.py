"""tilec.vjp / tilec.grad end to end: derived backward programs against torch.autograd (CPU,
f64) and central finite differences, through the interpreter and the compiled CPU path."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tilec
from tilec import float64, tile_op

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(12)


def torch_vjp(fn, primals, cts, wrt):
    ts = [torch.tensor(p, dtype=torch.float64, requires_grad=i in wrt) for i, p in enumerate(primals)]
    outs = fn(*ts)
    outs = outs if isinstance(outs, tuple) else (outs,)
    grads = torch.autograd.grad(outs, [ts[i] for i in wrt], [torch.tensor(c) for c in cts], allow_unused=True)
    return [np.zeros_like(primals[i]) if g is None else g.numpy() for i, g in zip(wrt, grads)]


def run_both(v, *args):
    """The VJP through the interpreter and compiled for the CPU (each checked by the caller)."""
    return [v.interpret(*args), v(*args)]


@tile_op(dtype=float64, dims=["M", "N"])
def exp_mul_sum(x, w):
    return (tilec.exp(x) * w + x).sum(-1)


@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (13, 5)])
def test_skeleton_add_mul_exp_sum(shape):
    x, w = RNG.standard_normal(shape), RNG.standard_normal(shape)
    g = RNG.standard_normal(shape[:1])
    want = torch_vjp(lambda x, w: (torch.exp(x) * w + x).sum(-1), [x, w], [g], [0, 1])
    v = tilec.vjp(exp_mul_sum, wrt=("x", "w"))
    for dx, dw in run_both(v, x, w, g):
        np.testing.assert_allclose(dx, want[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(dw, want[1], rtol=1e-12, atol=1e-12)


# --- dynamic sizes, fan-out, several loads, unused parts ----------------------------------------


@tile_op(dtype=float64, dims=["M", "N"])
def two_loads_two_outputs(x, b):
    h = tilec.tanh(x * b)
    unused = tilec.exp(x).sum()  # reaches no output: not differentiated  # noqa: F841
    return h * h + x, (h * x).sum(-1)


@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (17, 29)])
def test_dynamic_sizes_fan_out_and_two_outputs(shape):
    x, b = RNG.standard_normal(shape), RNG.standard_normal(shape)
    c0, c1 = RNG.standard_normal(shape), RNG.standard_normal(shape[:1])

    def ref(x, b):
        h = torch.tanh(x * b)
        return h * h + x, (h * x).sum(-1)

    want = torch_vjp(ref, [x, b], [c0, c1], [0, 1])
    v = tilec.vjp(two_loads_two_outputs, wrt=("x", "b"))
    assert "?x?" in v.ir("tile")  # one program for every size
    for dx, db in run_both(v, x, b, c0, c1):
        np.testing.assert_allclose(dx, want[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(db, want[1], rtol=1e-12, atol=1e-12)


def test_wrt_subset_and_no_path_gives_zeros():
    @tile_op(dtype=float64)
    def f(x, y, z):
        return x * y + y, tilec.exp(z)

    x, y, z = (RNG.standard_normal((3, 4)) for _ in range(3))
    c0, c1 = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    v = tilec.vjp(f, wrt=("x",))
    text = v.ir("tile", x, y, z)
    assert "tile.exp" not in text  # z is not a wrt input: its part is not differentiated
    for dx in run_both(v, x, y, z, c0, c1):
        np.testing.assert_allclose(dx, c0 * y, rtol=1e-14)
    g = tilec.vjp(f, wrt="z")
    assert "ct_out0" not in g.ir("tile", x, y, z).split("tile.return")[0].split("outs")[1]
    for dz in run_both(tilec.vjp(f, wrt=("x", "z")), x, y, z, c0, c1):
        np.testing.assert_allclose(dz[1], c1 * np.exp(z), rtol=1e-14)


def test_integer_path_is_a_zero_cotangent():
    """Comparisons and float->int casts are piecewise constant: relu via where, and a rounded copy."""

    @tile_op(dtype=float64)
    def f(x):
        r = tilec.where(x > 0, x, 0.0)
        return r + x.astype(tilec.int32).astype(tilec.float64)

    x = RNG.standard_normal((4, 7))
    ct = RNG.standard_normal(x.shape)
    for dx in run_both(tilec.vjp(f, wrt="x"), x, ct):
        np.testing.assert_array_equal(dx, np.where(x > 0, ct, 0.0))


def test_non_differentiable_op_on_the_path_is_a_located_error():
    import inspect

    @tile_op(dtype=tilec.float32)
    def f(x):
        return tilec.bitcast(tilec.bitcast(x, tilec.uint32) & 0x7FFFFFFF, tilec.float32)

    v = tilec.vjp(f, wrt="x")
    with pytest.raises(tilec.TileError) as e:
        v.ir("tile", np.zeros(4, np.float32))
    line = inspect.getsourcelines(f.fn)[1] + 2
    assert e.value.location.line == line and e.value.location.file == __file__
    assert "tile.bitcast is not differentiable (it reinterprets bits)" in e.value.message
    assert "path from 'x' to an output" in e.value.message


def test_wrt_errors():
    with pytest.raises(tilec.TileError, match="wrt names 'q', which is not a parameter"):
        tilec.vjp(exp_mul_sum, wrt="q")
    with pytest.raises(tilec.TileError, match="takes a @tile_op function"):
        tilec.vjp(lambda x: x)

    @tile_op(dtype=tilec.int32)
    def ints(x):
        return x * 2

    with pytest.raises(tilec.TileError, match="only float array inputs have cotangents"):
        tilec.vjp(ints, wrt="x").ir("tile", np.zeros(3, np.int32))


def test_cotangent_shape_and_dtype_checked():
    v = tilec.vjp(exp_mul_sum, wrt="x")
    x = np.zeros((3, 4))
    with pytest.raises(tilec.TileError, match=r"argument 'ct_out' has shape \(4,\) but \(3,\) is expected"):
        v(x, x, np.zeros(4))
    with pytest.raises(tilec.TileError, match="argument 'ct_out' has dtype float32"):
        v(x, x, np.zeros(3, np.float32))


# --- grad -----------------------------------------------------------------------------------------


def test_grad_of_a_scalar_loss():
    @tile_op(dtype=float64)
    def loss(x, t):
        d = x - t
        return (d * d).mean()

    x, t = RNG.standard_normal((6, 5)), RNG.standard_normal((6, 5))
    g = tilec.grad(loss, wrt="x")
    assert "ct_" not in g.ir("tile", x, t)
    for dx in (g.interpret(x, t), g(x, t)):
        np.testing.assert_allclose(dx, 2 * (x - t) / x.size, rtol=1e-13)
    with pytest.raises(tilec.TileError, match="must have one element"):
        tilec.grad(exp_mul_sum, wrt="x").ir("tile", np.zeros((3, 4)), np.zeros((3, 4)))


# --- save / recompute ---------------------------------------------------------------------------


@tile_op(dtype=tilec.float32, dims=["M", "N"])
def softmax(x):
    e = tilec.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@tile_op(dtype=tilec.float32)
def layernorm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    rstd = tilec.rsqrt((xc * xc).mean(-1, keepdims=True) + 1e-5)
    return xc * rstd * g + b


def _residual_ops(v, *examples):
    fwd = v.module(*examples, which="forward")
    func = next(iter(fwd.body.block.ops))
    n = v.op.__dict__.get("_n_out", 1)
    stores = [o for o in func.body.block.ops if o.name == "tile.store"][n:]
    return [s.value.owner for s in stores]


def test_softmax_saves_row_max_and_sum():
    v = tilec.vjp(softmax)
    res = _residual_ops(v)
    assert [(o.name, o.kind.data) for o in res] == [("tile.reduce", "max"), ("tile.reduce", "sum")]
    x = RNG.standard_normal((7, 33)).astype(np.float32)
    ct = RNG.standard_normal(x.shape).astype(np.float32)
    out, m, s = v.forward_with_residuals(x)
    np.testing.assert_allclose(m, x.max(-1), rtol=1e-6)
    dx = v.backward(x, m, s, ct)
    want = torch_vjp(lambda x: torch.softmax(x, -1), [x.astype(np.float64)], [ct.astype(np.float64)], [0])[0]
    np.testing.assert_allclose(dx, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(v(x, ct), dx, rtol=1e-5, atol=1e-6)


def test_layernorm_saves_mean_and_rstd():
    x = RNG.standard_normal((6, 19)).astype(np.float32)
    g, b = RNG.standard_normal(19).astype(np.float32), RNG.standard_normal(19).astype(np.float32)
    v = tilec.vjp(layernorm)
    res = _residual_ops(v, x, g, b)
    assert [o.name for o in res] == ["tile.mul", "tile.rsqrt"]  # sum * (1/n), rsqrt(var + eps)
    out, mean, rstd = v.forward_with_residuals(x, g, b)
    np.testing.assert_allclose(mean, x.mean(-1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd[:, 0], 1 / np.sqrt(x.var(-1) + 1e-5), rtol=1e-4)
    ct = RNG.standard_normal(x.shape).astype(np.float32)
    got = v.backward(x, g, b, mean, rstd, ct)
    want = torch_vjp(
        lambda x, g, b: torch.nn.functional.layer_norm(x, (19,), g, b, 1e-5),
        [a.astype(np.float64) for a in (x, g, b)],
        [ct.astype(np.float64)],
        [0, 1, 2],
    )
    for a, w in zip(got, want):
        np.testing.assert_allclose(a, w, rtol=1e-3, atol=1e-4)


def test_save_override():
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    assert tilec.vjp(softmax, save="nothing").residual_count(x) == 0
    assert "tile.exp" in [o.name for o in _residual_ops(tilec.vjp(softmax, save=["exp"]))]
    assert len(_residual_ops(tilec.vjp(softmax, save=lambda op: False if op.name == "tile.reduce" else None))) == 0
    everything = _residual_ops(tilec.vjp(softmax, save="everything"))
    assert len(everything) > 2 and all(o.name != "tile.load" for o in everything)
    ct = RNG.standard_normal(x.shape).astype(np.float32)
    want = tilec.vjp(softmax)(x, ct)
    for save in ("nothing", "everything", ["exp"]):
        v = tilec.vjp(softmax, save=save)
        outs = v.forward_with_residuals(x)
        np.testing.assert_allclose(v.backward(x, *outs[1:], ct), want, rtol=1e-5, atol=1e-6)


def test_dropout_mask_is_regenerated_not_saved():
    @tile_op(dtype=tilec.float32, dims=["M", "N"])
    def dropout(x, seed: int, offset: int, p: float):
        keep = tilec.random.bernoulli(1.0 - p, seed, offset, x.shape)
        return tilec.where(keep, tilec.exp(x) / (1.0 - p), 0.0)

    v = tilec.vjp(dropout, wrt="x")
    assert v.residual_count() == 0
    assert "tile.random_bits" in v.ir("tile", which="backward")
    x = RNG.standard_normal((5, 37)).astype(np.float32)
    ct = RNG.standard_normal(x.shape).astype(np.float32)
    y = dropout(x, 7, 3, 0.25)
    keep = y != 0
    assert 0 < keep.mean() < 1
    for dx in (v.interpret(x, 7, 3, 0.25, ct), v(x, 7, 3, 0.25, ct), v.backward(x, 7, 3, 0.25, ct)):
        np.testing.assert_allclose(dx, np.where(keep, ct * np.exp(x) / 0.75, 0.0), rtol=1e-5)


# --- end to end ---------------------------------------------------------------------------------


def _ln(x, g, b):
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    return xc * tilec.rsqrt((xc * xc).mean(-1, keepdims=True) + 1e-5) * g + b


def _gelu(x):
    return 0.5 * x * (1.0 + tilec.erf(x * (1.0 / math.sqrt(2.0))))


@tile_op(dtype=float64)
def mlp_cross_entropy(x, g, b, w1, w2, p):
    """2-layer MLP (layernorm, GELU) and the mean cross-entropy against target probabilities p."""
    z = tilec.tile_contract(_gelu(tilec.tile_contract(_ln(x, g, b), w1, axes=[(1, 0)])), w2, axes=[(1, 0)])
    s = z - z.max(-1, keepdims=True)
    logp = s - tilec.log(tilec.exp(s).sum(-1, keepdims=True))
    return -(p * logp).sum() * (1.0 / x.shape[0])


def test_mlp_with_gelu_layernorm_and_cross_entropy_matches_torch():
    n, d, h, c = 9, 13, 23, 7
    x, g, b = RNG.standard_normal((n, d)), RNG.standard_normal(d), RNG.standard_normal(d)
    w1, w2 = RNG.standard_normal((d, h)) / 4, RNG.standard_normal((h, c)) / 5
    p = np.exp(RNG.standard_normal((n, c)))
    p /= p.sum(-1, keepdims=True)

    def ref(x, g, b, w1, w2, p):
        y = torch.nn.functional.layer_norm(x, (d,), g, b, 1e-5)
        z = torch.nn.functional.gelu(y @ w1) @ w2
        return torch.nn.functional.cross_entropy(z, p)

    wrt = ("x", "g", "b", "w1", "w2")
    want = torch_vjp(ref, [x, g, b, w1, w2, p], [np.array(1.0)], [0, 1, 2, 3, 4])
    grad = tilec.grad(mlp_cross_entropy, wrt=wrt)
    for got in (grad.interpret(x, g, b, w1, w2, p), grad(x, g, b, w1, w2, p)):
        for a, w in zip(got, want):
            np.testing.assert_allclose(a, w, rtol=1e-10, atol=1e-12)


@tile_op(dtype=float64)
def causal_attention(q, k, v):
    """softmax(q k^T / sqrt(d) + causal mask) v over (heads, time, d)."""
    s = tilec.tile_contract(q, k, axes=[(2, 2)], batch=[(0, 0)]) * (1.0 / math.sqrt(q.shape[-1]))
    t = q.shape[1]
    future = tilec.iota((t, t), axis=1) > tilec.iota((t, t), axis=0)
    s = tilec.where(future, -1e30, s)
    e = tilec.exp(s - s.max(-1, keepdims=True))
    a = e / e.sum(-1, keepdims=True)
    return tilec.tile_contract(a, v, axes=[(2, 1)], batch=[(0, 0)])


def test_causal_attention_block_matches_torch():
    hq, t, d = 3, 11, 5
    q, k, v = (RNG.standard_normal((hq, t, d)) for _ in range(3))
    ct = RNG.standard_normal((hq, t, d))

    def ref(q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)

    want = torch_vjp(ref, [q, k, v], [ct], [0, 1, 2])
    for got in run_both(tilec.vjp(causal_attention), q, k, v, ct):
        for a, w in zip(got, want):
            np.testing.assert_allclose(a, w, rtol=1e-10, atol=1e-12)
