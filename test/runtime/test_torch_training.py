"""Training parity: small models train 20 steps with every ATen op of the step (forward,
backward, optimizer) on tilec kernels under `tilec.torch.dispatch(strict=True)`, and their losses
and parameters match eager torch's from the same seed (CPU, f32, 1e-4 relative). On a CUDA GPU
(marked `gpu`) the same models train under `torch.compile(backend=tilec)` in bf16 autocast, every
graph node on tilec, losses within 3e-2 relative of eager's (bf16 has 8 significant bits: the two
runs round different sums apart, and 20 steps carry those differences on)."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it: .ci/run)")
tt = pytest.importorskip("tilec.torch")
nn = torch.nn
F = torch.nn.functional

STEPS = 20


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 12, 3, stride=2, bias=False),
            nn.BatchNorm2d(12),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(12, 5),
        )

    def forward(self, x):
        return self.body(x)


class Block(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        # no qkv bias (as Llama): the key bias has a zero gradient in exact arithmetic (softmax is
        # shift-invariant), so AdamW would turn rounding noise into lr-sized steps in both runs
        self.qkv, self.proj = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class TinyGPT(nn.Module):
    def __init__(self, vocab=29, d=16, heads=2, layers=2, block=11):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(block, d)
        self.blocks = nn.Sequential(*[Block(d, heads) for _ in range(layers)])
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
        return self.head(self.ln(self.blocks(x)))


def _data(name, g):
    if name == "cnn":
        return torch.randn(4, 3, 13, 11, generator=g), torch.randint(0, 5, (4,), generator=g)
    return torch.randint(0, 29, (3, 11), generator=g), torch.randint(0, 29, (3, 11), generator=g)


def _train(name, seed, x, y, device="cpu", autocast=False):
    torch.manual_seed(seed)
    model = (SmallCNN() if name == "cnn" else TinyGPT()).to(device)
    opt = (
        torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        if name == "cnn"
        else torch.optim.AdamW(model.parameters(), lr=3e-3)
    )

    def step(forward=model):
        with torch.autocast(device, dtype=torch.bfloat16, enabled=autocast):
            out = forward(x)
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]).float(), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return model, step


@pytest.mark.parametrize("name", ["cnn", "gpt"])
def test_training_parity_on_tilec_kernels(rng, name):
    seed = int(rng.integers(1 << 30))
    x, y = _data(name, torch.Generator().manual_seed(seed))
    ref_model, ref_step = _train(name, seed, x, y)
    want = [ref_step() for _ in range(STEPS)]
    model, step = _train(name, seed, x, y)  # built (random init) outside the mode
    with tt.dispatch(strict=True) as d:
        got = [step() for _ in range(STEPS)]
    assert d.report.coverage == 1.0 and not d.report.fallbacks
    for a, b in zip(got, want):
        assert math.isclose(a, b, rel_tol=1e-4), (got, want)
    assert want[-1] < want[0]  # it trains
    for (n, p), q in zip(model.named_parameters(), ref_model.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-3, atol=1e-4, msg=n)
    for b, rb in zip(model.buffers(), ref_model.buffers()):  # batch norm's running statistics
        torch.testing.assert_close(b, rb, rtol=1e-3, atol=1e-4)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU for torch")
@pytest.mark.parametrize("name", ["cnn", "gpt"])
def test_training_parity_cuda_bf16_autocast_compiled(rng, name):
    seed = int(rng.integers(1 << 30))
    x, y = (t.cuda() for t in _data(name, torch.Generator().manual_seed(seed)))
    _, ref_step = _train(name, seed, x, y, "cuda", autocast=True)
    want = [ref_step() for _ in range(STEPS)]
    model, step = _train(name, seed, x, y, "cuda", autocast=True)
    torch._dynamo.reset()
    backend = tt.Backend(strict=True)
    compiled = torch.compile(model, backend=backend)
    got = [step(compiled) for _ in range(STEPS)]
    torch._dynamo.reset()
    assert backend.graphs and backend.report.coverage == 1.0 and not backend.report.fallbacks
    for a, b in zip(got, want):
        assert math.isclose(a, b, rel_tol=3e-2), (got, want)
    assert got[-1] < got[0]  # it trains


from cpu_util import rng  # noqa: E402, F401
