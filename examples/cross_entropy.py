"""Mean cross-entropy over float32 logits with int64 labels, forward and backward, in two kernels.

    python examples/cross_entropy.py [--show-ir]

Forward: loss = mean(logsumexp(x) - x[n, labels[n]]); the picked logit is
`tilec.take_along_axis(x, labels[:, None], 1)`, a gather that reads the logits in place next to
the row's max and sum. Backward: dx = (softmax(x) - one_hot(labels)) / N, where one_hot is
`iota == labels[:, None]` (no one-hot tile in memory). One `rowwise` kernel computes every
row's loss and the whole gradient; a second one sums the rows' losses into the mean. Checked against numpy and against torch.nn.functional.cross_entropy and its
autograd gradient (the CPU torch in the venv), on awkward shapes; an out-of-range label raises
tilec.IndexOutOfRange (also an IndexError) at the gather's line.
"""

import sys

import numpy as np

import tilec
from tilec import float32, int64, tile_op


@tile_op(dims=["N", "C"])  # every parameter has a type: no op dtype needed
def cross_entropy(logits: float32, labels: int64):
    m = tilec.max(logits, axis=1, keepdims=True)
    lse = tilec.log(tilec.sum(tilec.exp(logits - m), axis=1, keepdims=True)) + m
    picked = tilec.take_along_axis(logits, labels[:, None], 1)
    n = logits.shape[0]
    loss = tilec.sum(lse - picked) / n  # a run-time size in arithmetic: one kernel for every N
    grad = (tilec.exp(logits - lse) - tilec.one_hot(labels, logits.shape[1], float32)) / n
    return loss, grad


def reference(x: np.ndarray, labels: np.ndarray):
    x = x.astype(np.float64)
    n = x.shape[0]
    lse = np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1)
    p = np.exp(x - lse[:, None])
    p[np.arange(n), labels] -= 1
    return np.mean(lse - x[np.arange(n), labels]), p / n


def torch_reference(x: np.ndarray, labels: np.ndarray):
    try:
        import torch
    except ImportError:
        return None
    t = torch.tensor(x, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(t, torch.tensor(labels))
    loss.backward()
    return float(loss.detach()), t.grad.numpy()


def main() -> int:
    rng = np.random.default_rng(0)
    if "--show-ir" in sys.argv[1:]:
        for level in ("tile", "mapped", "hw"):
            print(f"// ----- {level} IR -----\n{cross_entropy.ir(level)}")
        print(f"// ----- C source -----\n{cross_entropy.source()}")
    ok = True
    for n, c in [(1, 1), (7, 10), (64, 1000), (13, 30522)]:
        x = 4 * rng.standard_normal((n, c), dtype=np.float32)
        labels = rng.integers(0, c, n)
        loss, grad = cross_entropy(x, labels)
        want_loss, want_grad = reference(x, labels)
        good = abs(float(loss) - want_loss) <= 1e-5 * max(1.0, abs(want_loss)) and np.allclose(
            grad, want_grad, rtol=1e-5, atol=1e-7
        )
        t = torch_reference(x, labels)
        if t is not None:
            good &= abs(float(loss) - t[0]) <= 1e-5 * max(1.0, abs(t[0])) and np.allclose(
                grad, t[1], rtol=1e-4, atol=1e-7
            )
        ok &= bool(good)
        print(
            f"cross-entropy {n}x{c}: loss {float(loss):.6f} (numpy {want_loss:.6f}"
            f"{'' if t is None else f', torch {t[0]:.6f}'}), max grad error {float(np.abs(grad - want_grad).max()):.1e}"
        )
    kernels = cross_entropy.ir("mapped", x, labels).count("mapped.kernel @")
    ok &= kernels == 2
    print(f"kernels for forward + backward: {kernels}")
    labels[0] = c  # out of range
    try:
        cross_entropy(x, labels)
        ok = False
    except tilec.IndexOutOfRange as e:
        print(f"a label of {c} for {c} classes: {e.render(quote_source=False)}")
    print(f"cross-entropy forward and backward (float32 logits, int64 labels, CPU): {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
