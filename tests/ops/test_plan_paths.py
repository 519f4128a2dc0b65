"""The shim's plan-time paths of an op (Op.plan with constant inputs and unused outputs known,
Op.inplace for a layer fused after another) give what the op's own evaluate gives, the
evaluate paths chosen by data (depthwise convolution, phases of strided windows, pools axis by
axis, big pooling kernels, MatMul by a 2-D matrix) match direct references (float32 Erf and
Gelu: test_erf_gelu.py)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from converter.ops.op import Op
from tests.ops.test_nn import _model

OPS = Op.registered_ops
RNG = np.random.default_rng(7)


def _attrs(name: str, **kw):
    return {**OPS[name].defaults, **kw}


def _conv_ref(x, w, group, **kw):
    node = helper.make_node("Conv", ["x", "w"], ["y"], group=group, **kw)
    return ReferenceEvaluator(_model(node, {"x": x, "w": w})).run(None, {"x": x, "w": w})[0]


@pytest.mark.parametrize(("channels", "group", "out", "k", "kw"), [
    (4, 1, 6, 3, {"strides": [2, 2], "pads": [1, 0, 2, 1]}),  # plain, columns + GEMM
    (4, 2, 6, 3, {"strides": [3, 1], "dilations": [1, 2], "pads": [2, 0, 1, 1]}),  # phases
    (4, 1, 6, 1, {"strides": [2, 3]}),  # strided 1x1: one strided copy, no phases
    (4, 1, 6, 1, {}),  # 1x1: no columns
    (6, 6, 6, 3, {"pads": [1, 1, 1, 1], "dilations": [2, 1]}),  # depthwise
    (6, 6, 6, 1, {"strides": [2, 2]}),  # depthwise 1x1: a per-channel scale
    (6, 6, 12, 3, {"pads": [1, 1, 1, 1]}),  # two filters per channel: grouped GEMM
    (6, 2, 4, 3, {}),  # grouped
    (8, 1, 4, 3, {"pads": [1, 2, 0, 1], "dilations": [2, 1]}),  # narrowing: tap sums
    (6, 1, 5, 3, {}),  # unpadded: tap sums over the data itself
])
def test_convolution_plan_and_evaluate_match_reference(channels, group, out, k, kw,
                                                       either_path):
    x = RNG.standard_normal((2, channels, 9, 8)).astype(np.float32)
    w = RNG.standard_normal((out, channels // group, k, k)).astype(np.float32)
    attrs = {"strides": kw.get("strides", [1, 1]), "dilations": kw.get("dilations", [1, 1]),
             "pads_begin": kw.get("pads", [0] * 4)[:2], "pads_end": kw.get("pads", [0] * 4)[2:],
             "auto_pad": "explicit"}
    expected = _conv_ref(x, w, group, **kw)
    if group == 1:
        name, weights = "Convolution", w
    else:
        name, weights = "GroupConvolution", w.reshape(group, out // group, *w.shape[1:])
    cls = OPS[name]
    evaluated = cls.compute(attrs, [x, weights])[0]
    planned = cls.plan(attrs, [None, weights], [True])
    np.testing.assert_allclose(evaluated, expected, atol=1e-4)
    for _ in range(2):  # the second run reuses the geometry cached for this shape
        np.testing.assert_allclose(planned([x, weights])[0], expected, atol=1e-4)
    smaller = x[:, :, :7, :7]
    np.testing.assert_allclose(planned([smaller, weights])[0],
                               cls.compute(attrs, [smaller, weights])[0], atol=1e-5)


@pytest.mark.parametrize(("shape", "k", "pads"), [
    ((2, 5, 11), (3,), [1, 2]),
    ((1, 6, 5, 6, 4), (3, 2, 3), [1, 0, 1, 1, 1, 0]),
])
def test_tap_sums_in_one_and_three_dimensions(shape, k, pads):
    x = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal((3, shape[1], *k)).astype(np.float32)
    n = len(k)
    attrs = _attrs("Convolution", strides=[1] * n, dilations=[1] * n, pads_begin=pads[:n],
                   pads_end=pads[n:])
    expected = _conv_ref(x, w, 1, pads=pads)
    got = OPS["Convolution"].plan(attrs, [None, w], [True])([x, w])[0]
    np.testing.assert_allclose(got, expected, atol=1e-4)
    np.testing.assert_allclose(OPS["Convolution"].compute(attrs, [x, w])[0], expected, atol=1e-4)


def _windows64(x, kernel, strides, dilations, pads_begin, pads_end, fill=0.0):
    """[N, C, *out, *kernel] windows of x in float64, padded with fill (a direct reference)."""
    n = len(kernel)
    pads = [(0, 0), (0, 0), *zip(pads_begin, pads_end)]
    xp = np.pad(x.astype(np.float64), pads, constant_values=fill)
    eff = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    view = np.lib.stride_tricks.sliding_window_view(xp, eff, axis=tuple(range(2, 2 + n)))
    return view[(slice(None),) * 2 + tuple(slice(None, None, s) for s in strides)
                + tuple(slice(None, None, d) for d in dilations)]


@pytest.mark.parametrize(("shape", "k", "strides", "dilations", "pads", "dtype"), [
    ((2, 5, 9, 8), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), np.float32),
    ((1, 4, 11, 7), (3, 3), (2, 2), (1, 1), ((1, 0), (2, 1)), np.float32),  # phases
    ((1, 3, 10, 13), (2, 5), (3, 1), (2, 1), ((0, 2), (1, 0)), np.float64),
    ((1, 6, 12, 12), (7, 7), (1, 1), (1, 1), ((3, 3), (3, 3)), np.float32),  # convnext's
    ((2, 3, 9, 61), (3, 7), (1, 1), (1, 1), ((0, 2), (1, 3)), np.float32),  # banded, 3 blocks
    ((1, 40, 14, 14), (5, 5), (1, 1), (1, 1), ((2, 2), (2, 2)), np.float32),  # ... 1 block
    ((1, 2, 6, 30), (5, 7), (1, 1), (1, 1), ((2, 0), (2, 6)), np.float64),  # ... 2 blocks
    ((1, 3, 5, 6), (1, 3), (1, 2), (1, 2), ((0, 0), (0, 0)), np.float32),
    ((1, 4, 8, 8), (3, 3), (2, 2), (1, 1), ((1, 1), (1, 1)), np.float16),  # GEMM path
    ((2, 40, 9, 8), (3, 3), (1, 1), (1, 1), ((1, 1), (1, 1)), np.float32),  # channels last
    ((1, 33, 11, 7), (3, 3), (2, 2), (1, 1), ((1, 0), (2, 1)), np.float32),  # ... in phases
    ((2, 32, 10, 13), (2, 5), (3, 1), (2, 1), ((0, 2), (1, 0)), np.float64),
])
def test_depthwise_plan_and_evaluate_on_odd_geometry(shape, k, strides, dilations, pads, dtype,
                                                    either_path):
    x = RNG.standard_normal(shape).astype(dtype)
    w = RNG.standard_normal((shape[1], 1, 1, *k)).astype(dtype)
    attrs = {"strides": list(strides), "dilations": list(dilations), "pads_begin": list(pads[0]),
             "pads_end": list(pads[1]), "auto_pad": "explicit"}
    win = _windows64(x, k, strides, dilations, pads[0], pads[1])
    expected = np.einsum("nchwij,cij->nchw", win, w[:, 0, 0].astype(np.float64))
    cls = OPS["GroupConvolution"]
    evaluated = cls.compute(attrs, [x, w])[0]
    planned = cls.plan(attrs, [None, w], [True])
    tol = 2e-2 if dtype == np.float16 else 1e-5
    assert evaluated.dtype == dtype and evaluated.flags.c_contiguous
    np.testing.assert_allclose(evaluated, expected, rtol=tol, atol=tol)
    for _ in range(2):  # scratch memory reused from the call before
        got = planned([x, w])[0]  # unit strides: native, or banded GEMMs if wide
        assert got.dtype == dtype and got.flags.c_contiguous
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("auto_pad", ["same_upper", "same_lower", "valid"])
def test_depthwise_auto_pad_matches_the_reference(auto_pad):
    x = RNG.standard_normal((1, 4, 7, 6)).astype(np.float32)
    w = RNG.standard_normal((4, 1, 3, 3)).astype(np.float32)
    attrs = {"strides": [2, 2], "dilations": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0],
             "auto_pad": auto_pad}
    got = OPS["GroupConvolution"].compute(attrs, [x, w.reshape(4, 1, 1, 3, 3)])[0]
    expected = _conv_ref(x, w, 4, strides=[2, 2], auto_pad=auto_pad.upper())
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_depthwise_over_one_and_three_axes_matches_the_reference():
    for shape, k, pads in (((2, 4, 11), [3], [1, 2]), ((1, 3, 5, 6, 4), [3, 2, 2], [1] * 6)):
        x = RNG.standard_normal(shape).astype(np.float32)
        w = RNG.standard_normal((shape[1], 1, *k)).astype(np.float32)
        n = len(k)
        attrs = {"strides": [1] * n, "dilations": [1] * n, "pads_begin": pads[:n],
                 "pads_end": pads[n:], "auto_pad": "explicit"}
        got = OPS["GroupConvolution"].compute(attrs, [x, w[:, None]])[0]
        np.testing.assert_allclose(got, _conv_ref(x, w, shape[1], pads=pads), rtol=1e-5,
                                   atol=1e-5)


_POOLS = [  # kernel, strides, dilations, pads_begin, pads_end, rounding, shape
    ([3, 3], [2, 2], [1, 1], [0, 0], [1, 1], "floor", (1, 3, 9, 10)),
    ([3, 2], [1, 2], [2, 1], [1, 0], [1, 1], "ceil", (2, 2, 7, 9)),
    ([2, 3, 2], [2, 1, 2], [1, 1, 1], [1, 0, 1], [0, 1, 1], "floor", (1, 2, 5, 6, 5)),
    ([20, 3], [1, 1], [1, 1], [0, 1], [0, 1], "floor", (1, 2, 21, 4)),  # numpy's reduction
    ([3, 3], [2, 2], [1, 1], [0, 0], [0, 0], "floor", (1, 3, 10, 9)),  # x itself, cropped
    ([1, 3], [2, 1], [1, 1], [0, 0], [0, 0], "floor", (1, 2, 7, 8)),
    ([2, 1], [1, 3], [1, 1], [0, 0], [0, 0], "floor", (1, 2, 7, 8)),
]


@pytest.mark.parametrize(("kernel", "strides", "dilations", "pb", "pe", "rounding", "shape"),
                         _POOLS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_pools_axis_by_axis_match_whole_windows(kernel, strides, dilations, pb, pe, rounding,
                                                shape, dtype, either_path):
    x = RNG.standard_normal(shape).astype(dtype)
    if shape[0] == 1:  # a strided view: the pools read any layout
        x = np.repeat(x, 2, axis=-1)[..., ::2]
    geo = {"kernel": kernel, "strides": strides, "pads_begin": pb, "pads_end": pe,
           "rounding_type": rounding}
    attrs = _attrs("MaxPool", dilations=dilations, **geo)
    out = OPS["MaxPool"].infer_shapes(attrs, [shape], [None])[0][2:]
    extra = [max(0, (o - 1) * s + (k - 1) * d + 1 - (i + b + e)) for o, s, k, d, i, b, e in
             zip(out, strides, kernel, dilations, shape[2:], pb, pe)]  # ceil's overhang
    ends = [e + x_ for e, x_ in zip(pe, extra)]
    win = _windows64(x, kernel, strides, dilations, pb, ends, -np.inf)
    axes = tuple(range(-len(kernel), 0))
    values, _ = OPS["MaxPool"].compute(attrs, [x])
    np.testing.assert_array_equal(values, win.max(axes).astype(dtype))
    lean = OPS["MaxPool"].plan(attrs, [None], [True, False])([x])[0]
    np.testing.assert_array_equal(lean, values)
    if dilations == [1] * len(kernel):
        avg = _attrs("AvgPool", **geo)
        win = _windows64(x, kernel, strides, dilations, pb, ends)
        ones = _windows64(np.ones_like(x), kernel, strides, dilations, pb, ends)
        within = np.pad(np.ones(shape), [(0, 0), (0, 0), *zip(pb, pe)], constant_values=1)
        padded = _windows64(within, kernel, strides, dilations, [0] * len(pb), extra)
        for exclude, count in ((True, ones.sum(axes)), (False, padded.sum(axes))):
            y = OPS["AvgPool"].compute({**avg, "exclude-pad": exclude}, [x])[0]
            planned = OPS["AvgPool"].plan({**avg, "exclude-pad": exclude}, [None], [True])
            for _ in range(2):  # the second run reuses the counts made for this shape
                np.testing.assert_array_equal(planned([x])[0], y)
            tol = 1e-2 if dtype == np.float16 else 1e-6
            assert y.dtype == dtype
            np.testing.assert_allclose(y, win.sum(axes) / np.maximum(count, 1), rtol=tol,
                                       atol=tol)


def test_max_pool_plan_skips_indices_only_when_unused():
    x = RNG.standard_normal((1, 3, 7, 7)).astype(np.float32)
    attrs = _attrs("MaxPool", kernel=[3, 3], strides=[2, 2], pads_begin=[1, 1],
                   pads_end=[1, 1], dilations=[1, 1])
    values, indices = OPS["MaxPool"].compute(attrs, [x])
    lean = OPS["MaxPool"].plan(attrs, [None], [True, False])([x])
    np.testing.assert_array_equal(lean[0], values)
    assert lean[1] is None
    full = OPS["MaxPool"].plan(attrs, [None], [True, True])([x])
    np.testing.assert_array_equal(full[1], indices)


@pytest.mark.parametrize("k", [3, 9])  # a running sum over 9 positions; numpy's sum over 81
def test_avg_pool_small_and_big_kernels(k):
    x = RNG.standard_normal((1, 2, 10, 10)).astype(np.float32)
    attrs = _attrs("AvgPool", kernel=[k, k], strides=[1, 1], pads_begin=[0, 0], pads_end=[0, 0])
    y = OPS["AvgPool"].compute(attrs, [x])[0]
    expected = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3)).mean((-1, -2))
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("transpose_a", [False, True])
def test_matmul_by_a_matrix(transpose_a):
    a = RNG.standard_normal((2, 3, 5, 4)).astype(np.float32)
    b = RNG.standard_normal((4, 6)).astype(np.float32)
    attrs = _attrs("MatMul", transpose_a=transpose_a)
    data = np.swapaxes(a, -1, -2).copy() if transpose_a else a
    y = OPS["MatMul"].compute(attrs, [data, b])[0]
    np.testing.assert_allclose(y, np.einsum("bhik,kj->bhij", a, b), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("name", "attrs", "params"), [
    ("Add", {}, [RNG.standard_normal((1, 3, 1, 1)).astype(np.float32)]),
    ("Multiply", {}, [RNG.standard_normal((3, 1, 1)).astype(np.float32)]),
    ("ReLU", {}, []),
    ("Clamp", {"min": -0.5, "max": 0.25}, []),
    ("BatchNormInference", {"epsilon": 1e-3},
     [RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32),
      RNG.standard_normal(3).astype(np.float32), RNG.uniform(0.5, 2, 3).astype(np.float32)]),
])
def test_inplace_matches_evaluate(name, attrs, params):
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    cls = OPS[name]
    attrs = _attrs(name, **attrs)
    expected = cls.compute(attrs, [x, *params])[0]
    fn = cls.inplace(attrs, [None, *params])
    y = x.copy()
    fn(y)
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-7)


def test_no_inplace_path_where_the_result_would_differ():
    ints = np.int32([1, 2, 3])
    assert OPS["Add"].inplace(_attrs("Add"), [None, ints]) is None  # integer constant
    assert OPS["Greater"].inplace(_attrs("Greater"), [None, np.float32(1)]) is None  # bool out
    assert OPS["Add"].inplace(_attrs("Add"), [None, None]) is None  # not a constant
    assert OPS["BatchNormInference1"].inplace({"epsilon": 1e-5}, [None] * 5) is None
    assert OPS["Sigmoid"].inplace({}, [None]) is None  # no in-place path


@pytest.mark.parametrize(("size", "beta"), [(1, 0.75), (4, 0.5), (5, 0.75), (5, 0.6)])
def test_lrn_shifted_sums_match_the_definition(size, beta):
    x = RNG.standard_normal((2, 7, 4, 3)).astype(np.float32)
    attrs = _attrs("LRN", size=size, alpha=0.02, beta=beta, bias=2.0)
    y = OPS["LRN"].compute(attrs, [x, np.int64([1])])[0]
    before = (size - 1) // 2
    squares = np.square(x.astype(np.float64))
    total = np.stack([squares[:, max(0, c - before):c - before + size].sum(1) for c in range(7)], 1)
    expected = x / (2.0 + 0.02 / size * total) ** beta
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-7)



@pytest.mark.parametrize(("shapes", "target", "special_zero"), [
    ([(1, 112, 28, 28)], [1, 4, 28, 28, 28], False),
    ([(2, 3, 4), (5, 3, 4)], [0, -1], True),  # a second input shape: worked out afresh
    ([(2, 3, 4), (7, 2)], [-1], False),
])
def test_reshape_plan_matches_evaluate_for_each_input_shape(shapes, target, special_zero):
    op = Op.registered_ops["Reshape"]
    attrs, target = {"special_zero": special_zero}, np.array(target)
    planned = op.plan(attrs, [None, target], [True])
    for shape in shapes:
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        got, want = planned([x, target])[0], op.evaluate(attrs, [x, target])[0]
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
