"""tilec.torch.op (tilec/torch/custom_op.py): tile ops as torch.library custom ops: eager numerics vs
torch, the fake implementation (from tracing, checked by torch.library.opcheck), torch.compile with
fullgraph=True and no graph breaks; the backward through tilec.vjp (eager, autograd, compiled)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec import float32, float64, tile_contract, tile_op

torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it: .ci/run)")
tt = pytest.importorskip("tilec.torch")


def _gen():
    return torch.Generator().manual_seed(int(np.random.default_rng().integers(1 << 30)))


def _ops(dt):
    @tile_op(dtype=dt)
    def gated(x, w, b, scale: float):
        h = tile_contract(x, w, axes=[(-1, 0)]) + b
        return tilec.tanh(h) * scale, tilec.sum(h * h, axis=-1)

    return gated


def _ref(x, w, b, scale):
    h = x @ w + b
    return torch.tanh(h) * scale, (h * h).sum(-1)


@pytest.mark.parametrize("mnk", [(1, 1, 1), (5, 7, 3), (13, 2, 17)])
def test_eager_numerics_and_opcheck(mnk):
    m, n, k = mnk
    op = tt.op(_ops(float32), wrt=("x", "w"))
    g = _gen()
    x, w, b = torch.randn(m, k, generator=g), torch.randn(k, n, generator=g), torch.randn(n, generator=g)
    y, s = op(x, w, b, 0.5)
    wy, ws = _ref(x, w, b, 0.5)
    torch.testing.assert_close(y, wy, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(s, ws, rtol=1e-4, atol=1e-4)
    # schema, fake tensors (shapes and dtypes from the trace) and the dispatcher all agree
    torch.library.opcheck(getattr(torch.ops.tilec, op.name), (x, w, b, 0.5))


def test_fake_implementation_traces_without_running(monkeypatch):
    from torch._subclasses.fake_tensor import FakeTensorMode

    import tilec.runtime

    def no_compiling(*args, **kwargs):
        raise AssertionError("the fake implementation compiled a kernel")

    monkeypatch.setattr(tilec.runtime, "compile_module", no_compiling)
    op = tt.op(_ops(float32))
    with FakeTensorMode():
        x, w, b = torch.empty(6, 11), torch.empty(11, 4), torch.empty(4)
        y, s = op(x, w, b, 1.0)
        assert y.shape == (6, 4) and s.shape == (6,) and y.dtype == s.dtype == torch.float32
    with (
        FakeTensorMode(),
        pytest.raises(tilec.TilecError, match="'w' has dtype torch.float64 but the tile op takes float32"),
    ):
        op(torch.empty(6, 11), torch.empty(11, 4, dtype=torch.float64), torch.empty(4), 1.0)


def test_torch_compile_fullgraph_without_graph_breaks():
    op = tt.op(_ops(float32), wrt="x")
    g = _gen()
    x, w, b = torch.randn(9, 5, generator=g), torch.randn(5, 3, generator=g), torch.randn(3, generator=g)

    def model(x, w, b):
        y, s = op(x, w, b, 2.0)
        return torch.relu(y) + s[:, None]

    explained = torch._dynamo.explain(model)(x, w, b)
    assert explained.graph_break_count == 0 and explained.graph_count == 1
    compiled = torch.compile(model, fullgraph=True)
    torch.testing.assert_close(compiled(x, w, b), model(x, w, b))
    y, s = _ref(x, w, b, 2.0)
    torch.testing.assert_close(compiled(x, w, b), torch.relu(y) + s[:, None], rtol=1e-4, atol=1e-4)
    x2 = torch.randn(4, 5, generator=g)  # another shape: a recompile (sizes are specialized)
    torch.testing.assert_close(compiled(x2, w, b), model(x2, w, b))


def test_decorator_names_and_errors():
    @tt.op(wrt=("x",), name="my_scale")
    @tile_op(dtype=float64)
    def scale(x, y):
        return x * y

    again = tt.op(scale.tile_op)
    assert scale.qualname == "tilec::my_scale" and again.qualname == "tilec::scale"
    third = tt.op(scale.tile_op, name="my_scale")
    assert third.name == "my_scale_2"  # unique per op
    x, y = torch.randn(3, 2, dtype=torch.float64), torch.randn(3, 2, dtype=torch.float64)
    torch.testing.assert_close(scale(x, y), x * y)
    with pytest.raises(tilec.TilecError, match=r"wrt names 'z', not a parameter \(x, y\)"):
        tt.op(scale.tile_op, wrt="z")
    with pytest.raises(
        tilec.TilecError, match=r"argument 'y' requires grad but the op differentiates only wrt=\['x'\]"
    ):
        scale(x, y.requires_grad_())


@pytest.mark.parametrize("mnk", [(1, 1, 1), (5, 3, 7), (13, 8, 2)])
def test_backward_matches_torch_autograd(mnk):
    m, n, k = mnk
    op = tt.op(_ops(float64), wrt=("x", "w", "b"))
    g = _gen()
    args = [torch.randn(s, generator=g, dtype=torch.float64) for s in ((m, k), (k, n), (n,))]
    mine = [a.clone().requires_grad_() for a in args]
    ref = [a.clone().requires_grad_() for a in args]
    cy, cs = torch.randn(m, n, generator=g, dtype=torch.float64), torch.randn(m, generator=g, dtype=torch.float64)
    y, s = op(*mine, 0.7)
    ((y * cy).sum() + (s * cs).sum()).backward()
    wy, ws = _ref(*ref, 0.7)
    ((wy * cy).sum() + (ws * cs).sum()).backward()
    for a, b in zip(mine, ref):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-9, atol=1e-9)


def test_gradcheck_and_one_unused_output():
    op = tt.op(_ops(float64), wrt=("x",))
    g = _gen()
    x = torch.randn(3, 4, generator=g, dtype=torch.float64, requires_grad=True)
    w, b = torch.randn(4, 5, generator=g, dtype=torch.float64), torch.randn(5, generator=g, dtype=torch.float64)
    assert torch.autograd.gradcheck(lambda x: op(x, w, b, 1.3)[0], (x,))  # the second output's cotangent: zeros
    assert torch.autograd.gradcheck(lambda x: op(x, w, b, 1.3)[1], (x,))


def test_backward_inside_torch_compile():
    op = tt.op(_ops(float32), wrt=("x", "w"))
    g = _gen()
    x, w, b = torch.randn(6, 4, generator=g), torch.randn(4, 3, generator=g), torch.randn(3, generator=g)

    def loss(x, w):
        y, s = op(x, w, b, 1.0)
        return (y * y).sum() + s.mean()

    xa, wa = x.clone().requires_grad_(), w.clone().requires_grad_()
    torch.compile(loss, fullgraph=True)(xa, wa).backward()
    xb, wb = x.clone().requires_grad_(), w.clone().requires_grad_()
    y, s = _ref(xb, wb, b, 1.0)
    ((y * y).sum() + s.mean()).backward()
    torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(wa.grad, wb.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.gpu
def test_cuda_custom_op_under_compile():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch")
    pytest.importorskip("cupy", reason="the cuda target needs CuPy")
    op = tt.op(_ops(float32))
    x, w, b = torch.randn(130, 64, device="cuda"), torch.randn(64, 72, device="cuda"), torch.randn(72, device="cuda")
    y, s = torch.compile(lambda *a: op(*a, 0.5), fullgraph=True)(x, w, b)
    wy, ws = _ref(x, w, b, 0.5)
    assert y.device == x.device
    torch.testing.assert_close(y, wy, rtol=2e-3, atol=2e-3)  # tf32-free f32, but GPU summation order
    torch.testing.assert_close(s, ws, rtol=2e-3, atol=2e-2)
