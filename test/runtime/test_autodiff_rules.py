"""Each VJP rule of the core modules (elementwise, shape, reduce) against torch.autograd (CPU,
f64) and central finite differences of the primal (the interpreter, f64), on fresh random
inputs of awkward shapes, through the interpreter and the compiled CPU path; and the elementwise,
reduction and contraction rules compiled in f32 for the CPU and (marked `gpu`) CUDA."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gpu_util import HAVE_GPU, cp

import tilec
from tilec import float32, float64, tile_op

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1212)


def _uniform(lo, hi):
    return lambda shape: RNG.uniform(lo, hi, shape)


NORMAL = RNG.standard_normal
POS = _uniform(0.3, 3.0)
UNIT = _uniform(-0.9, 0.9)

# name -> (tilec function, torch function, input sampler)
UNARY = {
    "neg": (lambda x: -x, lambda x: -x, NORMAL),
    "abs": (abs, torch.abs, NORMAL),
    "exp": (tilec.exp, torch.exp, NORMAL),
    "log": (tilec.log, torch.log, POS),
    "sqrt": (tilec.sqrt, torch.sqrt, POS),
    "rsqrt": (tilec.rsqrt, torch.rsqrt, POS),
    "tanh": (tilec.tanh, torch.tanh, NORMAL),
    "erf": (tilec.erf, torch.erf, NORMAL),
    "sin": (tilec.sin, torch.sin, NORMAL),
    "cos": (tilec.cos, torch.cos, NORMAL),
    "tan": (tilec.tan, torch.tan, UNIT),
    "asin": (tilec.asin, torch.asin, UNIT),
    "acos": (tilec.acos, torch.acos, UNIT),
    "atan": (tilec.atan, torch.atan, NORMAL),
    "sinh": (tilec.sinh, torch.sinh, NORMAL),
    "cosh": (tilec.cosh, torch.cosh, NORMAL),
    "asinh": (tilec.asinh, torch.asinh, NORMAL),
    "acosh": (tilec.acosh, torch.acosh, _uniform(1.2, 4.0)),
    "atanh": (tilec.atanh, torch.atanh, UNIT),
    "expm1": (tilec.expm1, torch.expm1, NORMAL),
    "log1p": (tilec.log1p, torch.log1p, POS),
    "log2": (tilec.log2, torch.log2, POS),
    "log10": (tilec.log10, torch.log10, POS),
    "exp2": (tilec.exp2, torch.exp2, NORMAL),
    "sigmoid": (tilec.sigmoid, torch.sigmoid, NORMAL),
    "softplus": (tilec.softplus, torch.nn.functional.softplus, NORMAL),
    "floor": (tilec.floor, torch.floor, NORMAL),
    "ceil": (tilec.ceil, torch.ceil, NORMAL),
    "round": (tilec.round, torch.round, NORMAL),
    "trunc": (tilec.trunc, torch.trunc, NORMAL),
    "sign": (tilec.sign, torch.sign, NORMAL),
    "cast_f32": (lambda x: x.astype(tilec.float32), lambda x: x.float(), NORMAL),
}

BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: a + b, NORMAL, NORMAL),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, NORMAL, NORMAL),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, NORMAL, NORMAL),
    "div": (lambda a, b: a / b, lambda a, b: a / b, NORMAL, POS),
    "pow": (lambda a, b: a**b, torch.pow, POS, NORMAL),
    "maximum": (tilec.maximum, torch.maximum, NORMAL, NORMAL),
    "minimum": (tilec.minimum, torch.minimum, NORMAL, NORMAL),
    "atan2": (tilec.atan2, torch.atan2, NORMAL, NORMAL),
    "mod": (lambda a, b: a % b, torch.remainder, NORMAL, POS),
    "where": (lambda a, b: tilec.where(a > b, a * 2.0, b), lambda a, b: torch.where(a > b, a * 2.0, b), NORMAL, NORMAL),
    "fan_out": (lambda a, b: a * a + a * b - tilec.exp(a), lambda a, b: a * a + a * b - torch.exp(a), NORMAL, NORMAL),
}

PIECEWISE_CONSTANT = {"floor", "ceil", "round", "trunc", "sign"}


def torch_grads(fn, primals, cts):
    ts = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in primals]
    out = fn(*ts)
    outs = out if isinstance(out, tuple) else (out,)
    gs = torch.autograd.grad(outs, ts, [torch.tensor(c, dtype=o.dtype) for c, o in zip(cts, outs)], allow_unused=True)
    return [np.zeros_like(p) if g is None else g.numpy() for p, g in zip(primals, gs)]


def finite_differences(op, primals, cts, eps=1e-6):
    """d/dp sum(op(p) * ct) by central differences, running the primal in the interpreter."""

    def loss(ps):
        outs = tilec.interpret(op, *ps)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return sum(float(np.sum(np.asarray(o, np.float64) * c)) for o, c in zip(outs, cts))

    grads = []
    for i, p in enumerate(primals):
        g = np.zeros_like(p)
        for j in np.ndindex(p.shape):
            hi = [q.copy() for q in primals]
            lo = [q.copy() for q in primals]
            hi[i][j] += eps
            lo[i][j] -= eps
            g[j] = (loss(hi) - loss(lo)) / (2 * eps)
        grads.append(g)
    return grads


def check(op, torch_fn, primals, cts, compiled=True, fd=True, rtol=1e-9, atol=1e-9):
    v = tilec.vjp(op, wrt=tuple(op.params))
    want = torch_grads(torch_fn, primals, cts)
    runs = [v.interpret(*primals, *cts)]
    if compiled:
        runs.append(v(*primals, *cts))
    for got in runs:
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    if fd:
        for g, w in zip(finite_differences(op, primals, cts), want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_rule(name):
    fn, tfn, sample = UNARY[name]
    op = tile_op(dtype=float64)(lambda x: fn(x))
    op.name = f"unary_{name}"
    shape = (3, 7)
    x = sample(shape)
    ct = RNG.standard_normal(shape)
    if name == "cast_f32":  # the cotangent has the result's type; the check is in f32
        ct = ct.astype(np.float32)
        v = tilec.vjp(op, wrt="x")
        for got in (v.interpret(x, ct), v(x, ct)):
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got, ct.astype(np.float64))
        return
    check(op, tfn, [x], [ct], fd=name not in PIECEWISE_CONSTANT)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_rule(name):
    fn, tfn, sa, sb = BINARY[name]
    op = tile_op(dtype=float64)(lambda a, b: fn(a, b))
    shape = (5, 11)
    a, b = sa(shape), sb(shape)
    if name == "mod":  # keep clear of the jumps for the finite differences
        b = np.full(shape, 0.7)
        a = np.floor(a / 0.7) * 0.7 + RNG.uniform(0.1, 0.6, shape)
    ct = RNG.standard_normal(shape)
    check(op, tfn, [a, b], [ct])


def test_max_min_ties_split_evenly():
    """Ties of tile.max / tile.min give half the cotangent to each side (torch's rule)."""
    op = tile_op(dtype=float64)(lambda a, b: tilec.maximum(a, b) + tilec.minimum(a, b) * 3.0)
    a = np.round(RNG.standard_normal((4, 9)))
    b = np.round(RNG.standard_normal((4, 9)))
    assert np.any(a == b)
    ct = RNG.standard_normal(a.shape)
    check(op, lambda a, b: torch.maximum(a, b) + torch.minimum(a, b) * 3.0, [a, b], [ct], fd=False)


def test_pow_at_zero_base():
    op = tile_op(dtype=float64)(lambda a, b: a**b)
    a = np.array([[0.0, 0.0, 1.5, 2.0, 0.0]])
    b = np.array([[2.0, 0.0, 0.5, -1.0, 3.0]])
    ct = RNG.standard_normal(a.shape)
    check(op, torch.pow, [a, b], [ct], fd=False)


# --- shapes -------------------------------------------------------------------------------------


def test_broadcast_rule():
    op = tile_op(dtype=float64)(lambda row, col, s: row * col + s)  # (1, 7) * (5, 1) + (1,)
    row, col, s = RNG.standard_normal((1, 7)), RNG.standard_normal((5, 1)), RNG.standard_normal((1,))
    ct = RNG.standard_normal((5, 7))
    check(op, lambda r, c, s: r * c + s, [row, col, s], [ct])


def test_broadcast_to_leading_axes():
    op = tile_op(dtype=float64)(lambda x: tilec.broadcast_to(x, (3, 4, 5)) * 2.0)
    x = RNG.standard_normal((4, 5))
    check(op, lambda x: torch.broadcast_to(x, (3, 4, 5)) * 2.0, [x], [RNG.standard_normal((3, 4, 5))])


def test_reshape_and_transpose_rules():
    op = tile_op(dtype=float64)(
        lambda x: tilec.reshape(x, (6, 5)).T * tilec.transpose(x.reshape(3, 2, 5), (2, 0, 1)).reshape(5, 6)
    )
    x = RNG.standard_normal((3, 10))
    ct = RNG.standard_normal((5, 6))
    check(op, lambda x: x.reshape(6, 5).T * x.reshape(3, 2, 5).permute(2, 0, 1).reshape(5, 6), [x], [ct])


# --- reductions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, (0, 2), None])
def test_sum_and_mean_rules(axis):
    op = tile_op(dtype=float64)(lambda x: (x.sum(axis) * 2.0, x.mean(axis)))
    x = RNG.standard_normal((3, 5, 7))
    outs = tilec.interpret(op, x)
    cts = [RNG.standard_normal(np.shape(o)) for o in outs]
    dim = axis if axis is not None else (0, 1, 2)
    check(op, lambda x: (x.sum(dim) * 2.0, x.mean(dim)), [x], cts)


@pytest.mark.parametrize("kind", ["max", "min"])
def test_max_min_reduction_ties_split(kind):
    """Ties of a max/min reduction split the cotangent evenly (torch.amax / amin's rule)."""
    fn = (lambda x: x.max(-1)) if kind == "max" else (lambda x: x.min(-1))
    op = tile_op(dtype=float64)(lambda x: fn(x))
    x = np.round(RNG.standard_normal((6, 13)) * 1.5)  # many ties
    ct = RNG.standard_normal((6,))
    tfn = (lambda x: torch.amax(x, -1)) if kind == "max" else (lambda x: torch.amin(x, -1))
    check(op, tfn, [x], [ct], fd=False)
    x = RNG.standard_normal((6, 13))  # no ties: finite differences too
    check(op, tfn, [x], [ct])


def _prod_op():
    from tilec.autodiff.rules.reduce import tile_prod

    return tile_op(dtype=float64)(lambda x: tile_prod(x, (1,)))


def test_prod_reduction_with_zeros():
    op = _prod_op()
    x = RNG.uniform(0.5, 1.5, (4, 6))
    x[1, 2] = 0.0  # one zero: its cotangent is the product of the others
    x[2, 0] = x[2, 4] = 0.0  # two zeros: all zero
    ct = RNG.standard_normal((4,))
    check(op, lambda x: torch.prod(x, 1), [x], [ct])


# --- contractions -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "la,lb,axes,batch,eq",
    [
        ((5, 7), (7, 3), [(1, 0)], [], "ik,kj->ij"),
        ((7, 5), (3, 7), [(0, 1)], [], "ki,jk->ij"),
        ((2, 5, 7), (2, 7, 3), [(2, 1)], [(0, 0)], "bik,bkj->bij"),
        ((3, 4, 2, 5), (5, 2, 3, 6), [(3, 0), (1, 4)] if False else [(3, 0), (2, 1)], [(0, 2)], "bxyz,zybw->bxw"),
        ((4, 3), (3, 4), [(0, 1), (1, 0)], [], "ij,ji->"),
    ],
)
def test_contract_rule(la, lb, axes, batch, eq):
    op = tile_op(dtype=float64)(lambda a, b: tilec.tile_contract(a, b, axes=axes, batch=batch))
    a, b = RNG.standard_normal(la), RNG.standard_normal(lb)
    out = tilec.interpret(op, a, b)
    ct = RNG.standard_normal(np.shape(out))
    check(op, lambda a, b: torch.einsum(eq, a, b), [a, b], [ct])


# --- composite patterns -------------------------------------------------------------------------


def test_softmax_and_log_softmax():
    def softmax(x):
        e = tilec.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    def log_softmax(x):
        z = x - x.max(-1, keepdims=True)
        return z - tilec.log(tilec.exp(z).sum(-1, keepdims=True))

    op = tile_op(dtype=float64)(lambda x: (softmax(x), log_softmax(x)))
    x = RNG.standard_normal((7, 13))
    cts = [RNG.standard_normal(x.shape), RNG.standard_normal(x.shape)]
    check(op, lambda x: (torch.softmax(x, -1), torch.log_softmax(x, -1)), [x], cts)


def test_layernorm():
    def ln(x, g, b):
        mu = x.mean(-1, keepdims=True)
        xc = x - mu
        rstd = tilec.rsqrt((xc * xc).mean(-1, keepdims=True) + 1e-5)
        return xc * rstd * g + b

    op = tile_op(dtype=float64)(ln)
    x, g, b = RNG.standard_normal((6, 17)), RNG.standard_normal(17), RNG.standard_normal(17)
    ct = RNG.standard_normal(x.shape)
    check(op, lambda x, g, b: torch.nn.functional.layer_norm(x, (17,), g, b, 1e-5), [x, g, b], [ct], rtol=1e-8)


def test_gelu_tanh():
    c = math.sqrt(2 / math.pi)
    op = tile_op(dtype=float64)(lambda x: 0.5 * x * (1.0 + tilec.tanh(c * (x + 0.044715 * x * x * x))))
    x = RNG.standard_normal((5, 9))
    check(op, lambda x: torch.nn.functional.gelu(x, approximate="tanh"), [x], [RNG.standard_normal(x.shape)])


# --- the same rules compiled for GPUs, in float32 ----------------------------------------------------
# (GPU cross-thread reductions of f64 are not supported yet.) Each rule's derived VJP runs compiled
# for `target` in f32 on a (37, 129) input, against torch.autograd in f64 of the same f32 inputs.
# The CPU runs check the tests themselves here; the CUDA runs are marked `gpu`.

F32_TARGETS = [
    "cpu",
    pytest.param(
        "cuda",
        marks=[pytest.mark.gpu, pytest.mark.skipif(not HAVE_GPU, reason="no NVIDIA GPU with CuPy on this machine")],
    ),
]
F32_SHAPE = (37, 129)


def check_f32(op, torch_fn, primals, cts, target, rtol=2e-4):
    """op's derived VJP (wrt every parameter) compiled for `target` in f32 against torch in f64."""
    v = tilec.vjp(op, wrt=tuple(op.params))
    primals = [p.astype(np.float32) for p in primals]
    cts = [c.astype(np.float32) for c in cts]
    want = torch_grads(torch_fn, [p.astype(np.float64) for p in primals], [c.astype(np.float64) for c in cts])
    args = [*primals, *cts]
    if target == "cuda":
        got = v(*[cp.asarray(a) for a in args])
        got = tuple(cp.asnumpy(g) for g in (got if isinstance(got, tuple) else (got,)))
    else:
        got = v(*args)
        got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        scale = max(1.0, float(np.abs(w).max(initial=0)))
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("target", F32_TARGETS)
@pytest.mark.parametrize("name", sorted(set(UNARY) - {"cast_f32"}))
def test_unary_rule_f32(name, target):
    fn, tfn, sample = UNARY[name]
    op = tile_op(dtype=float32)(lambda x: fn(x))
    op.name = f"unary_{name}_f32"
    x = sample(F32_SHAPE)
    check_f32(op, tfn, [x], [RNG.standard_normal(F32_SHAPE)], target)


@pytest.mark.parametrize("target", F32_TARGETS)
@pytest.mark.parametrize("name", sorted(set(BINARY) - {"mod"}))
def test_binary_rule_f32(name, target):
    fn, tfn, sa, sb = BINARY[name]
    op = tile_op(dtype=float32)(lambda a, b: fn(a, b))
    op.name = f"binary_{name}_f32"
    check_f32(op, tfn, [sa(F32_SHAPE), sb(F32_SHAPE)], [RNG.standard_normal(F32_SHAPE)], target)


REDUCTIONS_F32 = {
    "sum_rows": (lambda x: x.sum(-1), lambda x: x.sum(-1)),
    "sum_cols": (lambda x: x.sum(0), lambda x: x.sum(0)),
    "mean_rows_keepdims": (lambda x: x.mean(-1, keepdims=True) * x, lambda x: x.mean(-1, keepdims=True) * x),
    "max_rows": (lambda x: x.max(-1), lambda x: x.amax(-1)),
    "max_cols": (lambda x: x.max(0), lambda x: x.amax(0)),
    "softmax": (
        lambda x: (
            tilec.exp(x - x.max(-1, keepdims=True)) / tilec.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)
        ),
        lambda x: torch.softmax(x, -1),
    ),
    "log_softmax_cols": (
        lambda x: x - tilec.log(tilec.exp(x).sum(0, keepdims=True)),
        lambda x: torch.log_softmax(x, 0),
    ),
}


@pytest.mark.parametrize("target", F32_TARGETS)
@pytest.mark.parametrize("name", sorted(REDUCTIONS_F32))
def test_reduction_rules_f32(name, target):
    """Reductions over rows and columns (the rowwise kernels, the column kernels), softmax patterns."""
    fn, tfn = REDUCTIONS_F32[name]
    op = tile_op(dtype=float32)(lambda x: fn(x))
    op.name = f"reduction_{name}_f32"
    x = RNG.standard_normal(F32_SHAPE)
    out_shape = tfn(torch.from_numpy(x)).shape
    check_f32(op, tfn, [x], [RNG.standard_normal(tuple(out_shape))], target)


@pytest.mark.parametrize("target", F32_TARGETS)
def test_contract_rule_f32(target):
    op = tile_op(dtype=float32)(lambda a, b: tilec.tile_contract(a, b, axes=[(1, 0)]))
    op.name = "contract_f32"
    a, b = RNG.standard_normal((37, 65)), RNG.standard_normal((65, 29))
    check_f32(op, lambda a, b: a @ b, [a, b], [RNG.standard_normal((37, 29))], target)
