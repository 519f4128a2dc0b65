"""The shim's plan-time paths of an op (Op.plan with constant inputs and unused outputs known,
Op.inplace for a layer fused after another) give what the op's own evaluate gives, and the
evaluate paths chosen by data (depthwise convolution, big pooling kernels, MatMul by a 2-D
matrix) match direct references (float32 Erf and Gelu: test_erf_gelu.py)."""

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
    (4, 1, 6, 1, {}),  # 1x1: no columns
    (6, 6, 6, 3, {"pads": [1, 1, 1, 1], "dilations": [2, 1]}),  # depthwise
    (6, 6, 6, 1, {"strides": [2, 2]}),  # depthwise 1x1: a per-channel scale
    (6, 6, 12, 3, {"pads": [1, 1, 1, 1]}),  # two filters per channel: grouped GEMM
    (6, 2, 4, 3, {}),  # grouped
])
def test_convolution_plan_and_evaluate_match_reference(channels, group, out, k, kw):
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


@pytest.mark.parametrize("size", [1, 4, 5])
def test_lrn_shifted_sums_match_the_definition(size):
    x = RNG.standard_normal((2, 7, 4, 3)).astype(np.float32)
    attrs = _attrs("LRN", size=size, alpha=0.02, beta=0.75, bias=2.0)
    y = OPS["LRN"].compute(attrs, [x, np.int64([1])])[0]
    before = (size - 1) // 2
    squares = np.square(x.astype(np.float64))
    total = np.stack([squares[:, max(0, c - before):c - before + size].sum(1) for c in range(7)], 1)
    expected = x / (2.0 + 0.02 / size * total) ** 0.75
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-7)
