"""`torch.compile(model, backend="tilec")` (tilec/torch/backend.py): AOT autograd graphs split
into fused regions, one tile op each; training parity with eager torch; fallbacks reported (a
warning naming them) or, strict, an error."""

from __future__ import annotations

import math
import warnings

import pytest
from cpu_util import rng  # noqa: F401

torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it: .ci/run)")
tt = pytest.importorskip("tilec.torch")
F = torch.nn.functional

from test_torch_training import _data, _train  # noqa: E402

import tilec  # noqa: E402

STEPS = 8


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("name", ["cnn", "gpt"])
def test_training_parity_in_fused_regions(rng, name):
    seed = int(rng.integers(1 << 30))
    x, y = _data(name, torch.Generator().manual_seed(seed))
    _, ref_step = _train(name, seed, x, y)
    want = [ref_step() for _ in range(STEPS)]
    model, _ = _train(name, seed, x, y)
    backend = tt.Backend(strict=True)
    compiled = torch.compile(model, backend=backend)
    opt = (
        torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        if name == "cnn"
        else torch.optim.AdamW(model.parameters(), lr=3e-3)
    )
    got = []
    for _ in range(STEPS):
        out = compiled(x)
        loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        got.append(loss.item())
    for a, b in zip(got, want):
        assert math.isclose(a, b, rel_tol=1e-4), (got, want)
    rep = backend.report
    assert rep.coverage == 1.0 and not rep.fallbacks
    # one forward and one backward graph, each ONE fused region (not one kernel per ATen op)
    assert len(backend.graphs) == 2 and all(len(g.regions) == 1 for g in backend.graphs)
    assert sum(rep.kernels.values()) > 40 and len(rep.regions_seen) == 2
    if name == "cnn":  # batch norm's running statistics came back through the functional graph
        ref_model, _ = _train(name, seed, x, y)
        for _ in range(STEPS):
            ref_model(x)
        assert model.body[1].num_batches_tracked.item() == STEPS


def test_elementwise_epilogue_joins_the_matmul_region(rng):
    """A matmul, bias, GELU and a reduction compile into one region: one tile op whose IR holds
    the contraction and the elementwise ops together."""
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    a, w, b = torch.randn(5, 7, generator=g), torch.randn(7, 3, generator=g), torch.randn(3, generator=g)

    def f(x, y, z):
        return (F.gelu(x @ y + z) * 2).sum(-1)

    backend = tt.Backend(strict=True)
    got = torch.compile(f, backend=backend)(a, w, b)
    torch.testing.assert_close(got, f(a, w, b), rtol=1e-5, atol=1e-5)
    (region,) = backend.graphs[0].regions
    examples = [torch.zeros(tuple(n.meta["val"].shape)).numpy() for n in region.inputs]
    ir = region.op.ir("tile", *examples, *region.scalars)
    assert "tile.contract" in ir and "tile.reduce" in ir and "erf" in ir
    # five ATen ops (mm, add, gelu, mul, sum) -> two CPU kernels: the contraction with the
    # bias, GELU and scaling in its epilogue, then the row sum
    assert len([n for n in region.nodes if n.op == "call_function"]) >= 5
    mapped = region.op.ir("mapped", *examples, *region.scalars)
    assert mapped.count("mapped.kernel @") == 2, mapped


def test_views_after_a_region_are_made_by_torch(rng):
    """The tensors AOT autograd saves for the backward are often views (the transposed weight,
    the input flattened to 2-d): the region does not copy them out; torch makes each view from
    the region's result or input after it (`Region.host_views`), aliasing it as eager does."""
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    lin = torch.nn.Linear(6, 5)
    ref = torch.nn.Linear(6, 5)
    ref.load_state_dict(lin.state_dict())
    x = torch.randn(2, 3, 6, generator=g)
    backend = tt.Backend(strict=True)
    out = torch.compile(lin, backend=backend)(x)
    (out.square() * 0.5).sum().backward()
    want = ref(x)
    (want.square() * 0.5).sum().backward()
    torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(lin.weight.grad, ref.weight.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(lin.bias.grad, ref.bias.grad, rtol=1e-5, atol=1e-5)
    (region,) = backend.graphs[0].regions
    views = {n.target for n in region.host_views}
    assert views and all(getattr(t, "is_view", False) or "view" in str(t) for t in views), views
    assert not any(getattr(n.target, "is_view", False) for n in region.outputs), region.outputs
    # the views run in torch right after the region, in the compiled graph's steps
    steps = backend.graphs[0].steps
    at = steps.index(region)
    assert steps[at + 1 : at + 1 + len(region.host_views)] == region.host_views


def test_transposed_inputs_are_read_permuted_not_copied(rng, full_calls):
    """The backward region reads saved transposed weights: it takes `x.permute(p)` (contiguous, a
    view) and transposes it back inside the tile program, so its calls take the fast path (no
    full-path binding, no copy) from the second step on; gradients match eager."""
    full = full_calls
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    model = torch.nn.Sequential(torch.nn.Linear(7, 11), torch.nn.Tanh(), torch.nn.Linear(11, 3))
    ref = torch.nn.Sequential(torch.nn.Linear(7, 11), torch.nn.Tanh(), torch.nn.Linear(11, 3))
    ref.load_state_dict(model.state_dict())
    backend = tt.Backend(strict=True)
    compiled = torch.compile(model, backend=backend)
    for step in range(3):
        x = torch.randn(5, 7, generator=g)
        model.zero_grad()
        ref.zero_grad()
        compiled(x).square().sum().backward()
        ref(x).square().sum().backward()
        for a, b in zip(model.parameters(), ref.parameters()):
            torch.testing.assert_close(a.grad, b.grad, rtol=1e-5, atol=1e-5)
        if step == 0:
            first = full[0]
    assert full[0] == first  # steps 2 and 3: every region call on the fast path
    (bwd,) = backend.graphs[1].regions
    assert any(p is not None for p in bwd.perms), bwd.perms  # a saved transposed weight
    for n, p in zip(bwd.inputs, bwd.perms):
        if p is not None:
            assert not n.meta["val"].is_contiguous() and n.meta["val"].permute(p).is_contiguous()


def test_string_backend_name_and_tilec_torch_compile(rng):
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    m = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh())
    x = torch.randn(3, 4, generator=g)
    torch.testing.assert_close(torch.compile(m, backend="tilec")(x), m(x), rtol=1e-5, atol=1e-5)
    torch._dynamo.reset()
    torch.testing.assert_close(tt.compile(m)(x), m(x), rtol=1e-5, atol=1e-5)


def test_graph_constants_and_slice_scatter(rng):
    """A tensor constant of the graph (get_attr), lift_fresh_copy, and an in-place slice write
    (functionalized into slice_scatter) inside one compiled function."""
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    x = torch.randn(4, 6, generator=g)

    def f(v):
        c = torch.tensor([1.0, -2.0, 3.0, 0.5, 2.0, -1.0])  # a constant
        y = v * c
        y[:, 1:4] = y[:, 1:4].tanh()  # slice_scatter in the functional graph
        return y.sum(0)

    backend = tt.Backend(strict=True)
    torch.testing.assert_close(torch.compile(f, backend=backend)(x), f(x), rtol=1e-5, atol=1e-5)
    assert not backend.report.fallbacks


def test_fallbacks_are_reported_and_strict_fails(rng, monkeypatch):
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    x = torch.randn(4, 5, generator=g)

    def f(v):
        return torch.cumprod(v * 2, 0).relu() + 1  # cumprod: no ATen table entry yet

    backend = tt.Backend(strict=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(f, backend=backend)(x)
    torch.testing.assert_close(got, f(x))
    assert backend.report.fallbacks == {"aten::cumprod.default": 1}
    assert any("aten::cumprod.default" in str(w.message) for w in caught)
    assert len(backend.graphs[0].regions) == 2  # split around the torch-run node
    torch._dynamo.reset()
    with pytest.raises(Exception, match=r"not supported yet: aten::cumprod.default on tilec") as info:
        torch.compile(f, backend=tt.Backend(strict=True))(x)
    assert isinstance(info.value, tilec.NotSupportedYet) or "NotSupportedYet" in repr(info.value)
    torch._dynamo.reset()
    monkeypatch.setenv("TILEC_STRICT", "1")
    with pytest.raises(Exception, match="aten::cumprod.default"):
        torch.compile(f, backend=tt.Backend())(x)
