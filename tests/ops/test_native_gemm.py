"""The native GEMM (gemm.c) and the worker pool (parallel.c) that splits it and the window
kernels over threads: right against float64 products at every panel and block edge, the same
bits however many threads split the work, and safe under concurrent callers and fork."""

from __future__ import annotations

import multiprocessing
import os
import threading

import numpy as np
import pytest

from converter.ops import native
from converter.ops.native import library
from converter.ops.op import Op

RNG = np.random.default_rng(5)


@pytest.fixture
def split(monkeypatch):
    """split(n): the native kernels run over n threads from here on."""
    def use(n: int) -> None:
        monkeypatch.setattr(library, "threads", lambda: n)
    return use


def _gemm(a: np.ndarray, b: np.ndarray, bias: np.ndarray | None, relu: bool) -> np.ndarray:
    """a @ b (+ bias per row, ReLU) by the filters' path: a packed, b as it comes."""
    kernels = native.kernels()
    out = np.full((1, a.shape[0], b.shape[1]), np.nan, np.float32)
    kernels.gemm(kernels.pack_rows(a[None]), b[None], out, None if bias is None else bias[None],
                 relu)
    return out[0]


def _reference(a, b, bias, relu) -> np.ndarray:
    ref = a.astype(np.float64) @ b + (0 if bias is None else bias[:, None])
    return np.maximum(ref, 0) if relu else ref


@pytest.mark.parametrize(("m", "k", "n"), [
    (1, 1, 1), (7, 5, 3), (8, 32, 32), (9, 257, 33),  # one past a panel, a K block
    (17, 600, 1100),  # several column panels, edge tiles on both sides
    (300, 40, 20),  # more row panels than column panels: split by rows
    (600, 300, 100),  # rows enough to pack b too, in blocks
])
@pytest.mark.parametrize(("with_bias", "relu"), [(False, False), (True, True), (True, False)])
def test_gemm_matches_float64_products(m, k, n, with_bias, relu, split):
    split(2)
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    bias = RNG.standard_normal(m).astype(np.float32) if with_bias else None
    got = _gemm(a, b, bias, relu)
    np.testing.assert_allclose(got, _reference(a, b, bias, relu), rtol=1e-5, atol=1e-5 * k)


def test_gemm_gives_the_same_bits_over_any_number_of_threads(split):
    a = RNG.standard_normal((70, 300)).astype(np.float32)
    b = RNG.standard_normal((300, 1500)).astype(np.float32)
    bias = RNG.standard_normal(70).astype(np.float32)
    results = []
    for n in (1, 2, 3):
        split(n)
        results.append(_gemm(a, b, bias, True))
    for other in results[1:]:
        np.testing.assert_array_equal(other, results[0])


def test_gemm_keeps_nan_through_bias_and_relu(split):
    split(2)
    a = np.ones((9, 4), np.float32)
    b = np.ones((4, 40), np.float32)
    b[2, 5] = np.nan
    got = _gemm(a, b, np.full(9, -100, np.float32), True)
    assert np.isnan(got[:, 5]).all()
    assert (got[:, :5] == 0).all()  # 4 - 100 < 0


def test_gemm_refuses_shapes_that_do_not_fit():
    kernels = native.kernels()
    packed = kernels.pack_rows(np.ones((1, 4, 3), np.float32))
    with pytest.raises(ValueError, match="shapes do not fit"):
        kernels.gemm(packed, np.ones((1, 5, 2), np.float32), np.empty((1, 4, 2), np.float32),
                     None, False)


@pytest.mark.parametrize(("name", "attrs"), [
    ("MaxPool", {"kernel": [3, 3], "strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1]}),
    ("AvgPool", {"kernel": [3, 3], "strides": [1, 1], "pads_begin": [1, 1], "pads_end": [1, 1],
                 "exclude-pad": False}),
])
def test_pools_give_the_same_bits_over_two_threads(name, attrs, split):
    x = RNG.standard_normal((2, 24, 40, 40)).astype(np.float32)
    outs = []
    for n in (1, 2):
        split(n)
        outs.append(Op.registered_ops[name].plan(attrs, [None], [True, False])([x])[0])
    np.testing.assert_array_equal(outs[1], outs[0])


def test_window_kernels_and_gelu_give_the_same_bits_over_two_threads(split):
    kernels = native.kernels()
    x = RNG.standard_normal((1, 40, 30, 30)).astype(np.float32)
    w = RNG.standard_normal((40, 3, 3)).astype(np.float32)
    runs = []
    for n in (1, 2):
        split(n)
        cols = np.empty((1, 40, 9, 900), np.float32)
        kernels.im2col(x, cols, [3, 3], [1, 1], [1, 1], [30, 30])
        gelu = np.empty_like(x)
        kernels.gelu(x, gelu)
        runs.append([cols, gelu, kernels.depthwise2d(x, w, [1, 1], [1, 1], [30, 30])])
    for one, two in zip(*runs):
        np.testing.assert_array_equal(two, one)


def test_concurrent_callers_each_get_their_own_product(split):
    split(2)
    pairs = [(RNG.standard_normal((40, 200)).astype(np.float32),
              RNG.standard_normal((200, 700)).astype(np.float32)) for _ in range(4)]
    wrong = []

    def work(a, b):
        for _ in range(20):
            if not np.allclose(_gemm(a, b, None, False), a @ b, rtol=1e-4, atol=1e-3):
                wrong.append(1)

    workers = [threading.Thread(target=work, args=pair) for pair in pairs]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert not wrong


def _child(queue) -> None:
    a = np.ones((64, 300), np.float32)
    library.threads = lambda: 2
    queue.put(float(_gemm(a, np.ones((300, 900), np.float32), None, False).sum()))


def test_a_forked_child_starts_its_own_workers(split):
    split(2)
    _gemm(np.ones((64, 300), np.float32), np.ones((300, 900), np.float32), None, False)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(queue,))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
    assert child.exitcode == 0, "the forked child hung or failed in the native GEMM"
    assert queue.get(timeout=5) == 64 * 900 * 300


def _threads_started(queue) -> None:
    library.threads = lambda: 2
    before = len(os.listdir("/proc/self/task"))  # a forked child: this thread alone
    _gemm(np.ones((64, 300), np.float32), np.ones((300, 2000), np.float32), None, False)
    queue.put(len(os.listdir("/proc/self/task")) - before)


def test_parts_beyond_the_threads_start_no_more_workers():
    context = multiprocessing.get_context("fork")  # a pool with no workers yet
    queue = context.Queue()
    child = context.Process(target=_threads_started, args=(queue,))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0
    assert queue.get(timeout=5) == 1  # two threads: the caller and one worker, for four parts


def test_grouped_gemm_multiplies_each_group_by_its_own_filters(split):
    split(2)
    kernels = native.kernels()
    a = RNG.standard_normal((3, 20, 50)).astype(np.float32)
    b = RNG.standard_normal((3, 50, 700)).astype(np.float32)
    bias = RNG.standard_normal((3, 20)).astype(np.float32)
    out = np.empty((3, 20, 700), np.float32)
    kernels.gemm(kernels.pack_rows(a), b, out, bias, False)
    np.testing.assert_allclose(out, a.astype(np.float64) @ b + bias[..., None], rtol=1e-5,
                               atol=1e-4)


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 131])  # each row count the tiles specialise
@pytest.mark.parametrize("n", [530, 520])  # a last panel of 18 columns, and of 8 (one vector)
@pytest.mark.parametrize("relu", [False, True])
def test_gemm_with_packed_weights_matches_float64_products(m, n, relu, split):
    split(2)
    kernels = native.kernels()
    a = RNG.standard_normal((m, 300)).astype(np.float32)
    b = RNG.standard_normal((300, n)).astype(np.float32)
    bias = RNG.standard_normal(n).astype(np.float32)
    out = np.empty((m, n), np.float32)
    kernels.gemm_packed_b(a, kernels.pack_columns(b), out, bias, relu)
    ref = a.astype(np.float64) @ b + bias
    np.testing.assert_allclose(out, np.maximum(ref, 0) if relu else ref, rtol=1e-5, atol=3e-4)


@pytest.mark.parametrize(("a_shape", "transpose_b"), [
    ((2, 7, 40), False), ((7, 40), True), ((40,), False), ((0, 40), False)])
def test_matmul_plan_by_constant_weights_matches_evaluate(a_shape, transpose_b):
    op = Op.registered_ops["MatMul"]
    attrs = {"transpose_a": False, "transpose_b": transpose_b}
    w = RNG.standard_normal((33, 40) if transpose_b else (40, 33)).astype(np.float32)
    a = RNG.standard_normal(a_shape).astype(np.float32)
    planned = op.plan(attrs, [None, w], [True])
    assert type(planned).__name__ == "NativeMatMul"
    got, want = planned([a, w])[0], op.evaluate(attrs, [a, w])[0]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    wide = a.astype(np.float64)  # other types keep numpy's promotion
    assert planned([wide, w])[0].dtype == np.float64


def test_numpys_blas_keeps_to_one_thread_inside_the_block():
    from converter.ops.native.blas import _controls, one_blas_thread

    (get, put), *_ = _controls()  # numpy's wheel ships OpenBLAS: it must be found
    put(2)
    with one_blas_thread():
        assert get() == 1
    assert get() == 2


@pytest.mark.parametrize(("x_shape", "w_shape", "strides", "pads"), [
    ((2, 6, 9, 11), (5, 6, 1, 1), [1, 1], [0, 0]),  # 1x1: the data is the GEMM's operand
    ((1, 6, 9, 11), (5, 6, 1, 1), [2, 2], [0, 0]),
    ((2, 6, 9, 11), (10, 6, 3, 3), [1, 1], [1, 1]),  # wide enough: shifted rows, no columns
    ((1, 3, 20, 30), (9, 3, 3, 3), [1, 1], [0, 2]),  # shifted, padding on one side only
    ((1, 5, 6, 6), (4, 5, 3, 3), [1, 1], [1, 1]),  # small map: still shifted
    ((1, 5, 3, 3), (4, 5, 3, 3), [1, 1], [0, 0]),  # 1x1 output: columns
    ((1, 4, 12, 12), (7, 4, 3, 5), [2, 1], [2, 0]),  # strided: phases of shifted rows
    ((1, 3, 23, 21), (6, 3, 7, 7), [2, 2], [3, 3]),  # a ResNet stem on odd sizes
    ((2, 3, 17, 17), (5, 3, 3, 3), [2, 2], [0, 0]),  # squeezenet's stem
    ((1, 2, 20, 20), (4, 2, 4, 4), [3, 3], [1, 1]),
    ((2, 12, 8, 8), (3, 4, 4, 1, 1), [1, 1], [0, 0]),  # grouped
    ((1, 12, 8, 8), (4, 5, 3, 3, 3), [2, 2], [1, 1]),
    ((2, 12, 16, 16), (2, 9, 6, 3, 3), [1, 1], [1, 1]),  # grouped, shifted
])
@pytest.mark.parametrize("relu", [False, True])
def test_convolution_through_the_gemm_matches_evaluate(x_shape, w_shape, strides, pads, relu):
    name = "GroupConvolution" if len(w_shape) == 5 else "Convolution"
    op = Op.registered_ops[name]
    attrs = {"strides": strides, "dilations": [1, 1], "pads_begin": pads, "pads_end": pads,
             "auto_pad": "explicit"}
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    planned = op.plan(attrs, [None, w], [True])
    assert planned.takes_bias
    want = op.evaluate(attrs, [x, w])[0]
    bias = RNG.standard_normal(want.shape[1]).astype(np.float32)
    planned.bias = bias
    planned.relu = (lambda y: np.maximum(y, 0, out=y)) if relu else None
    want = want + bias[:, None, None]
    np.testing.assert_allclose(planned([x, w])[0], np.maximum(want, 0) if relu else want,
                               rtol=1e-5, atol=1e-5)
