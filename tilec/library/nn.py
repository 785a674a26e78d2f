"""Neural-network building blocks over tiles: activations, softmax, layer norm, NLL loss.

Every function works on `tilec.Tile` values inside a tile program. A 16-bit float input is
computed in float32 and the result rounded to the input's dtype once (`opmath` / `like`).
Reductions take `axes` as a tuple of non-negative axes.
"""

from __future__ import annotations

import math

import tilec
from tilec.frontend.dtypes import DType

SQRT1_2 = 1.0 / math.sqrt(2.0)
SQRT2_PI = math.sqrt(2.0 / math.pi)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
GELU_TANH_C = 0.044715


def opmath(x):
    """`x` in the type arithmetic on it runs in: float32 for float16 / bfloat16, else itself."""
    return x.astype(tilec.float32) if x.dtype in (tilec.float16, tilec.bfloat16) else x


def like(v, dtype: DType):
    """`v` rounded to `dtype` (no op when it already is)."""
    return v if v.dtype == dtype else v.astype(dtype)


# --- activations -----------------------------------------------------------------------------


def gelu(x, approximate: str = "none"):
    """GELU: x * Phi(x) (`approximate="none"`, through erf) or the tanh approximation."""
    v = opmath(x)
    if approximate == "tanh":
        inner = SQRT2_PI * (v + GELU_TANH_C * v * v * v)
        out = 0.5 * v * (1.0 + tilec.tanh(inner))
    else:
        out = 0.5 * v * (1.0 + tilec.erf(v * SQRT1_2))
    return like(out, x.dtype)


def gelu_backward(grad, x, approximate: str = "none"):
    """d gelu(x) / dx times `grad`."""
    g, v = opmath(grad), opmath(x)
    if approximate == "tanh":
        inner = SQRT2_PI * (v + GELU_TANH_C * v * v * v)
        t = tilec.tanh(inner)
        d = 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * SQRT2_PI * (1.0 + 3.0 * GELU_TANH_C * v * v)
    else:
        d = 0.5 * (1.0 + tilec.erf(v * SQRT1_2)) + v * tilec.exp(-0.5 * v * v) * INV_SQRT_2PI
    return like(g * d, grad.dtype)


def silu(x):
    """SiLU (swish): x * sigmoid(x)."""
    v = opmath(x)
    return like(v * tilec.sigmoid(v), x.dtype)


def silu_backward(grad, x):
    """d silu(x) / dx times `grad`: s * (1 + x * (1 - s)) with s = sigmoid(x)."""
    g, v = opmath(grad), opmath(x)
    s = tilec.sigmoid(v)
    return like(g * s * (1.0 + v * (1.0 - s)), grad.dtype)


def tanh_backward(grad, y):
    """d tanh / dx times `grad`, from the output y = tanh(x): grad * (1 - y^2)."""
    g, v = opmath(grad), opmath(y)
    return like(g * (1.0 - v * v), grad.dtype)


def sigmoid_backward(grad, y):
    """d sigmoid / dx times `grad`, from the output y: grad * y * (1 - y)."""
    g, v = opmath(grad), opmath(y)
    return like(g * v * (1.0 - v), grad.dtype)


def threshold_backward(grad, x, threshold):
    """ReLU's backward (torch's threshold_backward): 0 where x <= threshold, else grad."""
    return tilec.where(x <= threshold, 0, grad)


# --- softmax ---------------------------------------------------------------------------------


def softmax(x, axis: int, dtype: DType | None = None):
    """exp(x - max) / sum(exp(x - max)) along `axis`; the result in `dtype` (default x's)."""
    v = opmath(x)
    e = tilec.exp(v - tilec.max(v, axis=axis, keepdims=True))
    return like(e / tilec.sum(e, axis=axis, keepdims=True), dtype or x.dtype)


def safe_softmax(x, axis: int, dtype: DType | None = None):
    """softmax, but 0 along a slice that is entirely -inf (a fully masked attention row), where
    softmax gives NaN (torch's _safe_softmax)."""
    v = opmath(x)
    m = tilec.max(v, axis=axis, keepdims=True)
    e = tilec.exp(v - tilec.where(m == float("-inf"), 0.0, m))
    total = tilec.sum(e, axis=axis, keepdims=True)
    return like(tilec.where(m == float("-inf"), 0.0, e / total), dtype or x.dtype)


def log_softmax(x, axis: int, dtype: DType | None = None):
    """x - max - log(sum(exp(x - max))) along `axis`; the result in `dtype` (default x's)."""
    v = opmath(x)
    s = v - tilec.max(v, axis=axis, keepdims=True)
    return like(s - tilec.log(tilec.sum(tilec.exp(s), axis=axis, keepdims=True)), dtype or x.dtype)


def softmax_backward(grad, y, axis: int, dtype: DType | None = None):
    """Softmax's backward from its output y: y * (grad - sum(grad * y))."""
    g, v = opmath(grad), opmath(y)
    gy = g * v
    return like(gy - v * tilec.sum(gy, axis=axis, keepdims=True), dtype or grad.dtype)


def log_softmax_backward(grad, y, axis: int, dtype: DType | None = None):
    """Log-softmax's backward from its output y: grad - exp(y) * sum(grad)."""
    g, v = opmath(grad), opmath(y)
    return like(g - tilec.exp(v) * tilec.sum(g, axis=axis, keepdims=True), dtype or grad.dtype)


# --- layer norm ------------------------------------------------------------------------------


def layer_norm(x, axes: tuple[int, ...], weight=None, bias=None, eps: float = 1e-5):
    """Layer norm over `axes` (the trailing ones): (y, mean, rstd), mean and rstd kept with size-1
    axes (torch's native_layer_norm) in the compute type (float32 for 16-bit inputs)."""
    v = opmath(x)
    mean = tilec.mean(v, axis=axes, keepdims=True)
    d = v - mean
    rstd = tilec.rsqrt(tilec.mean(d * d, axis=axes, keepdims=True) + eps)
    y = d * rstd
    if weight is not None:
        y = y * opmath(weight)
    if bias is not None:
        y = y + opmath(bias)
    return like(y, x.dtype), mean, rstd


def layer_norm_backward(grad, x, mean, rstd, axes: tuple[int, ...], weight=None):
    """Layer norm's backward: (dx, dweight, dbias); dweight / dbias sum over the leading axes (the
    shape of `weight`). dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) with
    dxhat = grad * weight and xhat = (x - mean) * rstd."""
    g, v = opmath(grad), opmath(x)
    xhat = (v - mean) * rstd
    dxhat = g * opmath(weight) if weight is not None else g
    dx = rstd * (
        dxhat - tilec.mean(dxhat, axis=axes, keepdims=True) - xhat * tilec.mean(dxhat * xhat, axis=axes, keepdims=True)
    )
    lead = tuple(range(x.ndim - len(axes)))
    dw = tilec.sum(g * xhat, axis=lead) if weight is not None else None
    db = tilec.sum(g, axis=lead)
    return like(dx, x.dtype), (None if dw is None else like(dw, weight.dtype)), like(db, grad.dtype)


# --- negative log-likelihood -----------------------------------------------------------------


def _picked(target, ignore_index: int):
    """The class index per sample (ignored samples read class 0) and the kept-sample mask."""
    keep = target != ignore_index
    return tilec.where(keep, target, 0), keep


def nll_loss(logp, target, weight=None, reduction: str = "mean", ignore_index: int = -100):
    """torch's nll_loss_forward: (loss, total_weight). logp is (N, C) or (C,), target (N,) or ().
    A sample whose target is `ignore_index` counts zero; total_weight is the kept samples' weight
    sum (reduction "mean" divides by it)."""
    batched = logp.ndim == 2
    lp = logp if batched else logp.reshape(1, logp.shape[0])
    t = target if batched else target.reshape(1)
    idx, keep = _picked(t, ignore_index)
    val = opmath(tilec.take_along_axis(lp, idx.reshape(idx.shape[0], 1), axis=1).reshape(idx.shape[0]))
    w = keep.astype(val.dtype)
    if weight is not None:
        w = w * opmath(tilec.take(weight, idx))
    losses = -val * w
    total = tilec.sum(w)
    if reduction == "none":
        out = losses if batched else losses.reshape(())
    elif reduction == "sum":
        out = tilec.sum(losses)
    else:
        out = tilec.sum(losses) / total
    return like(out, logp.dtype), like(total, logp.dtype)


def nll_loss_backward(grad, logp, target, total_weight, weight=None, reduction: str = "mean", ignore_index: int = -100):
    """torch's nll_loss_backward: d loss / d logp, -weight[t] * grad (/ total_weight for "mean")
    at each sample's target class, 0 elsewhere and for ignored samples."""
    batched = logp.ndim == 2
    n_classes = logp.shape[-1]
    t = target if batched else target.reshape(1)
    idx, keep = _picked(t, ignore_index)
    g = opmath(grad)
    w = keep.astype(g.dtype)
    if weight is not None:
        w = w * opmath(tilec.take(weight, idx))
    scale = -w * g  # g is (N,) for reduction "none" of a batch, else a scalar
    if reduction == "mean":
        scale = scale / opmath(total_weight)
    hit = tilec.one_hot(idx, n_classes, dtype=tilec.bool_)
    out = tilec.where(hit, scale.reshape(scale.shape[0], 1), 0.0)
    out = out if batched else out.reshape(n_classes)
    return like(out, logp.dtype)


# --- batch norm ------------------------------------------------------------------------------


def _channel(v, ndim: int):
    """A per-channel (C,) tile shaped to broadcast against (N, C, *spatial)."""
    return v.reshape(v.shape[0], *([1] * (ndim - 2)))


def batch_stats(x, eps: float):
    """Batch statistics over every axis but the channel axis 1: (mean, biased var, invstd), (C,)."""
    v = opmath(x)
    axes = tuple(a for a in range(x.ndim) if a != 1)
    mean = tilec.mean(v, axis=axes)
    d = v - _channel(mean, x.ndim)
    var = tilec.mean(d * d, axis=axes)
    return mean, var, tilec.rsqrt(var + eps)


def batch_norm(x, mean, invstd, weight=None, bias=None):
    """(x - mean) * invstd * weight + bias with per-channel (C,) mean / invstd / weight / bias."""
    nd = x.ndim
    y = (opmath(x) - _channel(opmath(mean), nd)) * _channel(opmath(invstd), nd)
    if weight is not None:
        y = y * _channel(opmath(weight), nd)
    if bias is not None:
        y = y + _channel(opmath(bias), nd)
    return like(y, x.dtype)


def batch_norm_backward(grad, x, mean, invstd, weight=None, train: bool = True):
    """Batch norm's backward: (dx, dweight, dbias). With `train` the statistics came from the
    batch: dx = w * invstd * (g - mean(g) - xhat * mean(g * xhat)); else they are constants:
    dx = g * w * invstd. dweight = sum(g * xhat), dbias = sum(g) over all axes but 1."""
    nd = x.ndim
    axes = tuple(a for a in range(nd) if a != 1)
    g, v = opmath(grad), opmath(x)
    m, s = _channel(opmath(mean), nd), _channel(opmath(invstd), nd)
    xhat = (v - m) * s
    scale = s * _channel(opmath(weight), nd) if weight is not None else s
    if train:
        mg = _channel(tilec.mean(g, axis=axes), nd)
        mgx = _channel(tilec.mean(g * xhat, axis=axes), nd)
        dx = scale * (g - mg - xhat * mgx)
    else:
        dx = g * scale
    dw = tilec.sum(g * xhat, axis=axes)
    db = tilec.sum(g, axis=axes)
    wdt = weight.dtype if weight is not None else x.dtype
    return like(dx, x.dtype), like(dw, wdt), like(db, wdt)
