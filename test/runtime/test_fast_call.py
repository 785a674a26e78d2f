"""The fast path of op calls (tilec/frontend/dispatch.py): a repeat call with arguments of the same
signature skips binding, checking and specializing and launches the prepared call; any change of
dtype, shape, contiguity, kind or device takes the full path (which recompiles, re-plans or
raises as before), and what depends on values (scalar ranges, in-place aliasing and writability,
the index status word) is still checked at every call. Results are checked against numpy on
fresh random inputs at every call, so a fast call that read stale addresses or sizes fails.

Also (no GPU needed): the CUDA runtime's prepared call (CudaLaunch) replays exactly the launches
of the host program's executor (`host.run`) for programs with temporaries, views, runtime scalars
and a status word, on a fake device whose memory is host memory."""

from __future__ import annotations

import ctypes
import types

import ml_dtypes
import numpy as np
import pytest
from test_frontend_util import rand

import tilec
from tilec import float32, int8, int64, tile_op


def _axpy():
    @tile_op(dtype=float32, dims=["N"])
    def axpy(x, y, a: float):
        return a * x + y, tilec.sum(x)

    return axpy


def test_a_repeat_call_takes_the_fast_path_and_reads_each_calls_arrays(full_calls):
    axpy = _axpy()
    rng = np.random.default_rng()
    for k in range(5):  # new arrays (new addresses, new values) and a new scalar each time
        x, y, a = rand((37,), rng=rng), rand((37,), rng=rng), float(rng.uniform(-2, 2))
        out, s = axpy(x, y, a)
        np.testing.assert_allclose(out, np.float32(a) * x + y, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(s, x.astype(np.float64).sum(), rtol=1e-5, atol=1e-5)
        assert out.dtype == np.float32 and s.shape == ()
    assert full_calls[0] == 1 and axpy.fast_calls == 1


def test_a_new_size_of_a_dims_op_is_a_new_signature_without_a_new_trace(full_calls):
    axpy = _axpy()
    traces = None
    for n in (1, 37, 1000, 37, 1):
        x, y = rand((n,)), rand((n,))
        out, _ = axpy(x, y, 0.5)
        np.testing.assert_allclose(
            out, 0.5 * x + y, rtol=1e-6, atol=1e-6
        )  # the kernel may fuse a * x + y (one rounding)
        traces = traces or axpy.trace_count
    assert axpy.trace_count == traces  # dims: one trace for every size
    assert full_calls[0] == 3 and axpy.fast_calls == 3


def test_a_new_shape_of_a_shapes_op_recompiles():
    @tile_op(dtype=float32)
    def twice(x):
        return x * 2.0

    a, b = rand((7, 3)), rand((3, 7))
    np.testing.assert_array_equal(twice(a), a * 2)
    np.testing.assert_array_equal(twice(a), a * 2)
    traces = twice.trace_count
    np.testing.assert_array_equal(twice(b), b * 2)  # same dtype, same size, other shape
    assert twice.trace_count == traces + 1 and twice.fast_calls == 2


def test_a_new_dtype_is_the_full_paths_error(full_calls):
    axpy = _axpy()
    x = rand((11,))
    axpy(x, x, 1.0)
    axpy(x, x, 1.0)
    with pytest.raises(tilec.TileError, match="argument 'x' has dtype float64 but the op's dtype is float32"):
        axpy(x.astype(np.float64), x, 1.0)
    with pytest.raises(tilec.TileError, match="non-native byte order"):
        axpy(x.astype(">f4"), x, 1.0)
    assert axpy.fast_calls == 1


def test_a_wrong_size_is_the_full_paths_error():
    @tile_op(dtype=float32, dims=["N", 5])
    def add_row(x, b):
        return x + b

    x, b = rand((3, 5)), rand((5,))
    for _ in range(2):
        np.testing.assert_array_equal(add_row(x, b), x + b)
    with pytest.raises(tilec.TileError, match=r"argument 'x' axis 1 has size 6, expected 5"):
        add_row(rand((3, 6)), b)
    with pytest.raises(tilec.TileError, match=r"argument 'b' axis 0 has size 4, expected 5"):
        add_row(rand((3, 5)), rand((4,)))


def test_non_contiguous_cpu_arrays_are_copied_by_the_fast_path(full_calls):
    """A non-contiguous CPU argument is copied C-contiguous at every call, as the full path does,
    but without the full path: one full call per signature (strides are part of it); each call
    reads its own arrays' values."""
    axpy = _axpy()
    rng = np.random.default_rng()
    for _ in range(3):
        base, y = rand((40,), rng=rng), rand((20,), rng=rng)
        out, _ = axpy(base[::2], y, 3.0)
        np.testing.assert_allclose(out, 3 * base[::2] + y, rtol=1e-6, atol=1e-6)
        out, _ = axpy(base[1::2], y, 2.0)  # the same signature (shape, strides): the same fast call
        np.testing.assert_allclose(out, 2 * base[1::2] + y, rtol=1e-6, atol=1e-6)
    assert full_calls[0] == 1 and axpy.fast_calls == 1
    c = np.ascontiguousarray(base[::2])
    axpy(c, y, 3.0)
    out, _ = axpy(c, y, 3.0)
    np.testing.assert_allclose(out, 3 * c + y, rtol=1e-6, atol=1e-6)
    assert full_calls[0] == 2 and axpy.fast_calls == 2  # other strides: another signature


def test_torch_cpu_transposed_and_empty_arguments_take_the_fast_path(full_calls):
    """A torch region's arguments: transposed weights (copied per call) and empty dtype anchors."""
    torch = pytest.importorskip("torch")

    @tile_op(dtype=float32)
    def mm_anchor(a, b, anchor):
        return tilec.tile_contract(a, b, axes=[(-1, 0)]) + tilec.sum(anchor)

    g = torch.Generator().manual_seed(0)
    for _ in range(3):
        a, w = torch.randn(5, 7, generator=g), torch.randn(3, 7, generator=g)
        got = mm_anchor(a, w.t(), torch.empty(0))
        torch.testing.assert_close(got, a @ w.t(), rtol=1e-5, atol=1e-5)
    assert full_calls[0] == 1 and mm_anchor.fast_calls == 1


def test_non_contiguous_arguments_of_an_in_place_op_take_the_full_path(full_calls):
    """Where an op updates an argument in place, the aliasing rules are about the caller's arrays,
    so a non-contiguous argument is never copied by a fast call: each call takes the full path
    (which copies a read-only argument, and refuses a non-contiguous updated one)."""

    @tile_op(dtype=float32)
    def sgd(p, g, lr: float):
        p[...] = p - lr * g

    p, base = rand((10,)), rand((20,))
    want = p.copy()
    for _ in range(2):
        sgd(p, base[::2], 0.5)
        want = want - np.float32(0.5) * base[::2]
        np.testing.assert_allclose(p, want, rtol=1e-6, atol=1e-6)
        with pytest.raises(tilec.TileError, match="C-contiguous"):
            sgd(base[::2], p, 0.5)
    assert full_calls[0] == 4 and sgd.fast_calls == 0


def test_scalar_values_are_checked_at_every_call():
    @tile_op(dtype=float32, dims=["N"])
    def shift(x, k: tilec.scalar(int8)):
        return x + k.astype(float32)

    x = rand((9,))
    np.testing.assert_array_equal(shift(x, 3), x + 3)
    np.testing.assert_array_equal(shift(x, -128), x - 128)
    with pytest.raises(tilec.TileError, match=r"argument 'k' \(int8\): 300 does not fit in int8"):
        shift(x, 300)
    with pytest.raises(tilec.TileError, match="integer scalar .* got the float 2.5"):
        shift(x, 2.5)
    np.testing.assert_array_equal(shift(x, np.int64(5)), x + 5)  # a numpy scalar: its own signature


def test_in_place_rules_are_checked_at_every_call(full_calls):
    @tile_op(dtype=float32)
    def sgd(p, g, lr: float):
        p[...] = p - lr * g

    p, g = rand((33,)), rand((33,))
    want = p.copy()
    for _ in range(3):
        assert sgd(p, g, 0.25) is None
        want = want - np.float32(0.25) * g
        np.testing.assert_allclose(p, want, rtol=1e-6, atol=1e-6)
    assert full_calls[0] == 1
    both = rand((66,))
    with pytest.raises(tilec.TileError, match="argument 'p' is updated in place but shares memory with argument 'g'"):
        sgd(both[:33], both[16:49], 0.1)  # overlapping contiguous views: the fast entry's signature
    with pytest.raises(tilec.TileError, match="argument 'p' is updated in place but shares memory with argument 'g'"):
        sgd(p, p, 0.1)  # the same array twice: same signature as the fast entry
    frozen = p.copy()
    frozen.flags.writeable = False
    with pytest.raises(tilec.TileError, match="argument 'p' is updated in place but its array is read-only"):
        sgd(frozen, g, 0.1)
    np.testing.assert_allclose(p, want, rtol=1e-6, atol=1e-6)  # the failed calls wrote nothing


def test_the_status_word_is_read_at_every_fast_call():
    @tile_op(dtype=float32, dims=["V", "D", "N"])
    def embed(w, ids: int64):
        return tilec.take(w, ids, axis=0)

    w = rand((13, 4))
    ids = np.random.default_rng().integers(-13, 13, size=7)
    for _ in range(2):
        np.testing.assert_array_equal(embed(w, ids), w[ids])
    bad = ids.copy()
    bad[3] = 13
    with pytest.raises(tilec.IndexOutOfRange, match="take: index .*out of range.* argument 'ids'"):
        embed(w, bad)  # same signature: the fast path, which still reads the word
    assert embed.fast_calls == 1
    np.testing.assert_array_equal(embed(w, ids), w[ids])  # the word is per call


def test_calls_while_tracing_and_interpret_mode_are_not_fast(monkeypatch):
    @tile_op(dtype=float32)
    def inner(x):
        return x + 1.0

    x = rand((5,))
    inner(x)
    inner(x)
    assert inner.fast_calls == 1

    @tile_op(dtype=float32)
    def outer(y):
        inner(x)  # a numpy array of the fast entry's signature, while tracing
        return y

    with pytest.raises(tilec.TileError, match="while tracing another tile op is not supported"):
        outer(x)
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    traces = inner.trace_count
    np.testing.assert_array_equal(inner(x), x + 1)
    assert inner.trace_count == traces + 1  # interpreted: traced (and run) again


def test_keyword_calls_and_wrong_arguments_take_the_full_path(full_calls):
    axpy = _axpy()
    x, y = rand((8,)), rand((8,))
    axpy(x, y, 1.0)
    axpy(x, y, 1.0)
    out, _ = axpy(x, y=y, a=2.0)
    np.testing.assert_allclose(out, 2 * x + y, rtol=1e-6, atol=1e-6)
    assert full_calls[0] == 2
    with pytest.raises(tilec.TileError, match="argument 'y' must be an array"):
        axpy(x, list(y), 1.0)
    with pytest.raises(tilec.TileError, match="takes 3 array argument"):
        axpy(x, y)


@pytest.mark.parametrize("dt", [np.float32, np.bool_, np.int64, ml_dtypes.bfloat16, ml_dtypes.float8_e5m2])
@pytest.mark.parametrize("shape", [(), (1,), (3, 7)])
def test_address_readers_agree_with_numpy(dt, shape):
    from tilec.runtime.cpu import address_reader

    read = address_reader(dt)
    a = np.zeros(shape, dt)
    assert read(a) == a.ctypes.data
    a.flags.writeable = False  # no writable buffer: the fallback
    assert read(a) == a.ctypes.data


def test_bf16_and_fp8_numpy_arrays_on_the_fast_path(full_calls):
    @tile_op(dtype=tilec.bfloat16, dims=["M", "N"])
    def halve(x):
        return x * 0.5, x.astype(tilec.float8_e4m3fn)

    rng = np.random.default_rng()
    for _ in range(3):
        x = rng.standard_normal((5, 9)).astype(ml_dtypes.bfloat16)
        h, q = halve(x)
        assert h.dtype == x.dtype and q.dtype == np.dtype(ml_dtypes.float8_e4m3fn)
        np.testing.assert_array_equal(h.astype(np.float32), x.astype(np.float32) * 0.5)
        np.testing.assert_array_equal(q.astype(np.float32), x.astype(ml_dtypes.float8_e4m3fn).astype(np.float32))
    assert full_calls[0] == 1


torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it: .ci/run)")


def test_torch_cpu_tensors_fast_path_kind_and_device_changes(full_calls):
    @tile_op(dtype=tilec.bfloat16, dims=["M", "N"])
    def widen(x):
        return x.astype(tilec.float32) * 2.0, x + x

    g = torch.Generator().manual_seed(int(np.random.default_rng().integers(1 << 30)))
    for _ in range(3):
        x = torch.randn(5, 7, generator=g).to(torch.bfloat16)
        wide, same = widen(x)
        assert wide.dtype == torch.float32 and same.dtype == torch.bfloat16
        torch.testing.assert_close(wide, x.float() * 2, rtol=0, atol=0)
        torch.testing.assert_close(same, x + x, rtol=0, atol=0)
    assert full_calls[0] == 1
    xn = x.view(torch.int16).numpy().view(tilec.bfloat16.np)  # numpy: other kind, numpy results
    wide, _ = widen(xn)
    assert isinstance(wide, np.ndarray) and full_calls[0] == 2
    param = torch.nn.Parameter(x.clone(), requires_grad=False)
    for _ in range(2):
        torch.testing.assert_close(widen(param)[0], x.float() * 2, rtol=0, atol=0)
    assert full_calls[0] == 3 and widen.fast_calls == 3
    meta = torch.empty(5, 7, dtype=torch.bfloat16, device="meta")
    with pytest.raises(tilec.TileError, match="torch tensor on device 'meta'"):
        widen(meta)  # same shape and dtype, other device: not the CPU entry
    neg = torch._neg_view(x)  # a lazily negated view: its memory holds x
    torch.testing.assert_close(widen(neg)[0], -x.float() * 2, rtol=0, atol=0)
    torch.testing.assert_close(widen(neg)[0], -x.float() * 2, rtol=0, atol=0)
    t = x.t()  # non-contiguous
    torch.testing.assert_close(widen(t)[0], t.float() * 2, rtol=0, atol=0)


def test_torch_in_place_aliasing_on_the_fast_path():
    @tile_op(dtype=float32)
    def sgd(p, g, lr: float):
        p[...] = p - lr * g

    p, gr = torch.randn(16), torch.randn(16)
    want = p.clone()
    for _ in range(2):
        sgd(p, gr, 0.5)
        want -= 0.5 * gr
    torch.testing.assert_close(p, want)
    with pytest.raises(tilec.TileError, match="shares memory"):
        sgd(p, p, 0.5)


# --- the CUDA runtime's prepared call, replayed on a fake device ---------------------------------------


class _HostMemory:
    """Device memory that is host memory (numpy), for CudaLaunch and `host.run` alike."""

    def __init__(self):
        self.keep = []
        self.roles: dict[int, str] = {}

    def buffer(self, nbytes: int, role: str):
        b = np.full(max(nbytes, 1), 0x7F, np.uint8)  # garbage: the status word must be zeroed
        self.keep.append(b)
        self.roles[b.ctypes.data] = role
        return b, b.ctypes.data


def _programs():
    @tile_op(dtype=float32)
    def softmax_cols(x):
        e = tilec.exp(x - tilec.max(x, axis=0, keepdims=True))
        return e / tilec.sum(e, axis=0, keepdims=True), tilec.sum(x)

    @tile_op(dtype=float32)
    def reshaped_matmul(x, w):
        return tilec.tile_contract(x.reshape((35, 3)), w, axes=[(-1, 0)])

    @tile_op(dtype=float32, dims=["V", "D", "N"])
    def scaled_take(w, ids: int64, s: float):
        return tilec.take(w, ids, axis=0) * s

    return [
        (softmax_cols, [(37, 300)], []),
        (reshaped_matmul, [(5, 7, 3), (3, 4)], []),
        (scaled_take, [(13, 33), (7,), ()], [0.75]),
    ]


@pytest.mark.parametrize("which", range(3))
def test_cuda_prepared_call_replays_the_host_program(which):
    from tilec import runtime
    from tilec.runtime.cuda import CudaLaunch
    from tilec.runtime.host import HostProgram, Plans, run

    op, shapes, scalars = _programs()[which]
    spec = op._specialize(op._norm_shapes(shapes))
    host = HostProgram.from_mapped(runtime.lower(spec.module, "mapped", "cuda"))
    plans = Plans(host, spec.func)
    it = iter(scalars)
    inputs = [next(it) if sc else tuple(s) for s, sc in zip(shapes, op._scalars)]
    key = plans.shapes_key(inputs)
    out_specs, steps = plans.get(key)

    def role_of(memory, p):
        return memory.roles.get(p, p) if isinstance(p, int) else p

    # the executor: buffers are numpy arrays; views are reshapes (same address)
    old = _HostMemory()
    slots, launched_old = [], []
    for i, (v, sc) in enumerate(zip(inputs, op._scalars)):
        slots.append(v if sc else old.buffer(int(np.prod(v)) * 8, f"in{i}")[0])
    for j, (s, d) in enumerate(out_specs):
        slots.append(old.buffer(int(np.prod(s)) * d.itemsize, f"out{j}")[0])
    temps = [0]

    class Executor:
        def empty(self, shape, dtype):
            temps[0] += 1
            return old.buffer(int(np.prod(shape)) * np.dtype(dtype).itemsize, f"temp{temps[0]}")[0]

        def view(self, b, shape):
            return b

        def launch(self, name, grid, block, smem, params):
            ps = [old.roles[p.ctypes.data] if isinstance(p, np.ndarray) else p for p in params]
            launched_old.append((name, tuple(grid), tuple(block), smem, ps))

    run(steps, slots, Executor())

    # the prepared call: buffers are addresses
    new = _HostMemory()
    launched_new = []
    word = [None]
    status_pos = {}
    if host.status:  # where each kernel takes the status word (the host's last output)
        word_slot = host.num_inputs + host.num_outputs - 1
        for opr in host.ops:
            if opr[0] == "launch":
                pos = 0
                for s, a in zip(opr[3], host.kernels[opr[2]].args):
                    if s == word_slot:
                        status_pos[opr[2]] = pos
                    pos += 1 + (sum(1 for d in a[1] if d < 0) if a[0] == "buf" else 0)

    def function(name):
        def launch(grid, block, params, shared_mem=0, stream=None):
            assert stream is None
            launched_new.append((name, grid, block, shared_mem, [role_of(new, p) for p in params]))
            if name in status_pos:
                word[0] = params[status_pos[name]]
                assert ctypes.c_int32.from_address(word[0]).value == 0  # zeroed before the launch

        return launch

    fake_runtime = types.SimpleNamespace(
        memsetAsync=lambda p, v, n, s: ctypes.memset(p, v, n),
        memcpyAsync=lambda d, s, n, kind, st: ctypes.memmove(d, s, n),
        streamSynchronize=lambda s: None,
        memcpyDeviceToHost=2,
    )
    cp = types.SimpleNamespace(
        cuda=types.SimpleNamespace(runtime=fake_runtime, get_current_stream=lambda: types.SimpleNamespace(ptr=0))
    )
    device = types.SimpleNamespace(functions={k: function(k) for k in host.kernels}, launches=0, cp=cp)
    kernel = types.SimpleNamespace(host=host, name=op.name, _device=device)
    launch = CudaLaunch(kernel, out_specs, steps)
    assert len(launch.out_specs) == host.num_outputs - (1 if host.status else 0)
    values = [
        v if sc else new.buffer(int(np.prod(v)) * 8, f"in{i}")[1] for i, (v, sc) in enumerate(zip(inputs, op._scalars))
    ]
    outs = [
        new.buffer(int(np.prod(s)) * np.dtype(d).itemsize, f"out{j}")[1] for j, (s, d) in enumerate(launch.out_specs)
    ]
    calls = [0]

    def alloc(nbytes):  # the status word first (the host's last output), then the temporaries in order
        calls[0] += 1
        if host.status and calls[0] == 1:
            assert nbytes == 4
            return new.buffer(4, f"out{len(out_specs) - 1}")
        return new.buffer(nbytes, f"temp{calls[0] - (1 if host.status else 0)}")

    launch(values, outs, alloc)
    assert launched_new == launched_old and len(launched_new) == device.launches >= 1
    for (*_, a), (*_, b) in zip(launched_new, launched_old):  # scalar parameters keep their exact types
        assert [type(p) for p in a] == [type(p) for p in b]
    if host.status:
        assert word[0] is not None

        def bad(grid, block, params, shared_mem=0, stream=None):
            ctypes.c_int32.from_address(params[status_pos[name]]).value = 1

        name = next(iter(status_pos))
        device.functions[name] = bad
        launch = CudaLaunch(kernel, out_specs, steps)
        with pytest.raises(tilec.IndexOutOfRange, match="take: index out of range in argument 'ids'"):
            launch(values, outs, lambda n: new.buffer(n, "word"))
