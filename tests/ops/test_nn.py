"""nn ops: evaluate vs. numpy / the ONNX reference, shape inference, OpenVINO round trips."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from converter.onnx_backend import ExtgenBackend
from converter.ops.op import Op

OPS = Op.registered_ops
RNG = np.random.default_rng(0)


def _attrs(name: str, **kw):
    return {**OPS[name].defaults, **kw}


def _model(node, inputs: dict, opset: int = 17, inits: dict | None = None) -> onnx.ModelProto:
    ins = [helper.make_tensor_value_info(k, TensorProto.FLOAT, v.shape) for k, v in inputs.items()]
    outs = [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in node.output]
    tensors = [onnx.numpy_helper.from_array(v, k) for k, v in (inits or {}).items()]
    graph = helper.make_graph([node], "t", ins, outs, tensors)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _roundtrip(node, inputs: dict, opset: int = 17, inits: dict | None = None, expected=None):
    model = _model(node, inputs, opset, inits)
    expected = expected or ReferenceEvaluator(model).run(None, inputs)
    got = ExtgenBackend.prepare(model, engine="openvino").run(dict(inputs))
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, atol=1e-4, rtol=1e-4)


def _ref_conv(x, w, **kw):
    node = helper.make_node("Conv", ["x", "w"], ["y"], **kw)
    return ReferenceEvaluator(_model(node, {"x": x, "w": w})).run(None, {"x": x, "w": w})[0]


@pytest.mark.parametrize(("kw", "attrs"), [
    ({"strides": [2, 1], "pads": [1, 0, 2, 1], "dilations": [1, 2]},
     {"strides": [2, 1], "dilations": [1, 2], "pads_begin": [1, 0], "pads_end": [2, 1]}),
    ({"auto_pad": "SAME_UPPER", "strides": [2, 2]}, {"strides": [2, 2], "auto_pad": "same_upper"}),
    ({"auto_pad": "SAME_LOWER", "strides": [2, 2]}, {"strides": [2, 2], "auto_pad": "same_lower"}),
])
def test_convolution_evaluate(kw, attrs):
    x = RNG.standard_normal((2, 4, 9, 8)).astype(np.float32)
    w = RNG.standard_normal((6, 4, 3, 3)).astype(np.float32)
    y = OPS["Convolution"].compute(_attrs("Convolution", **attrs), [x, w])[0]
    np.testing.assert_allclose(y, _ref_conv(x, w, **kw), atol=1e-4)
    shape = OPS["Convolution"].infer_shapes(_attrs("Convolution", **attrs), [x.shape, w.shape],
                                            [None] * 2)
    assert shape == [y.shape]


def test_group_convolution_evaluate_and_dynamic_shape():
    x = RNG.standard_normal((1, 6, 7, 7)).astype(np.float32)
    w = RNG.standard_normal((6, 2, 3, 3)).astype(np.float32)
    attrs = _attrs("GroupConvolution", pads_begin=[1, 1], pads_end=[1, 1], strides=[1, 1],
                   dilations=[1, 1])
    y = OPS["GroupConvolution"].compute(attrs, [x, w.reshape(3, 2, 2, 3, 3)])[0]
    np.testing.assert_allclose(y, _ref_conv(x, w, group=3, pads=[1, 1, 1, 1]), atol=1e-4)
    shape = OPS["GroupConvolution"].infer_shapes(attrs, [(-1, 6, -1, 7), (3, 2, 2, 3, 3)],
                                                 [None] * 2)
    assert shape == [(-1, 6, -1, 7)]


def test_max_pool_values_and_indices():
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    attrs = _attrs("MaxPool", kernel=[2, 2], strides=[2, 2], pads_begin=[0, 0], pads_end=[0, 0],
                   dilations=[1, 1], rounding_type="ceil_torch")
    values, index = OPS["MaxPool"].compute(attrs, [x])
    assert values.shape == (1, 2, 3, 3) and index.dtype == np.int64
    np.testing.assert_array_equal(x.ravel()[index], values)
    assert values[0, 0, 0, 0] == x[0, 0, :2, :2].max()
    assert OPS["MaxPool"].infer_shapes(attrs, [(1, 2, -1, 5)], [None])[0] == (1, 2, -1, 3)


def test_avg_pool_exclude_pad():
    x = np.ones((1, 1, 3, 3), np.float32)
    attrs = _attrs("AvgPool", kernel=[3, 3], strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1])
    assert np.allclose(OPS["AvgPool"].compute({**attrs, "exclude-pad": True}, [x])[0], 1)
    y = OPS["AvgPool"].compute({**attrs, "exclude-pad": False}, [x])[0]
    assert y[0, 0, 0, 0] == pytest.approx(4 / 9)


def test_matmul_shapes_and_values():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((5, 4))
    attrs = _attrs("MatMul", transpose_b=True)
    np.testing.assert_allclose(OPS["MatMul"].compute(attrs, [a, b])[0], a @ b.T)
    assert OPS["MatMul"].infer_shapes(attrs, [(-1, 3, 4), (5, 4)], [None] * 2) == [(-1, 3, 5)]
    assert OPS["MatMul"].infer_shapes(_attrs("MatMul"), [(4,), (2, 4, 5)], [None] * 2) == [(2, 5)]


def test_softmax_and_mvn():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    y = OPS["Softmax"].compute(_attrs("Softmax", axis=-1), [x])[0]
    np.testing.assert_allclose(y, np.exp(x) / np.exp(x).sum(-1, keepdims=True), rtol=1e-5)
    z = OPS["LogSoftmax"].compute(_attrs("LogSoftmax", axis=1), [x])[0]
    np.testing.assert_allclose(np.exp(z).sum(1), 1, rtol=1e-5)
    m = OPS["MVN"].compute(_attrs("MVN", eps=1e-9), [x, np.array([-1])])[0]
    np.testing.assert_allclose(m.mean(-1), 0, atol=1e-5)


def test_depth_space_inverse():
    x = RNG.standard_normal((1, 8, 2, 3)).astype(np.float32)
    for mode in ("blocks_first", "depth_first"):
        d = OPS["DepthToSpace"].compute(_attrs("DepthToSpace", block_size=2, mode=mode), [x])[0]
        assert d.shape == (1, 2, 4, 6)
        back = OPS["SpaceToDepth"].compute(_attrs("SpaceToDepth", block_size=2, mode=mode), [d])[0]
        np.testing.assert_array_equal(back, x)


def test_interpolate_nearest_and_shape():
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    attrs = _attrs("Interpolate", mode="nearest", shape_calculation_mode="scales",
                   coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    scales = np.array([2.0, 2.0], np.float32)
    axes = np.array([2, 3])
    y = OPS["Interpolate"].compute(attrs, [x, scales, axes])[0]
    np.testing.assert_array_equal(y[0, 0], x[0, 0].repeat(2, 0).repeat(2, 1))
    shapes = OPS["Interpolate"].infer_shapes(attrs, [(-1, 1, 2, 2), (2,), (2,)],
                                             [None, scales, axes])
    assert shapes == [(-1, 1, 4, 4)]


# -- convert and run in OpenVINO ------------------------------------------------------------------
def test_conv_group_bias_roundtrip():
    x = RNG.standard_normal((1, 4, 6, 6)).astype(np.float32)
    w = RNG.standard_normal((4, 2, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], group=2, pads=[1, 1, 1, 1])
    _roundtrip(node, {"x": x}, inits={"w": w, "b": b})


def test_maxpool_indices_and_gemm_roundtrip():
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], ceil_mode=1,
                            strides=[2, 2])
    _roundtrip(node, {"x": x}, opset=12)
    a, c = RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal(5).astype(np.float32)
    gemm = helper.make_node("Gemm", ["a", "b", "c"], ["y"], transB=1, alpha=0.5, beta=2.0)
    _roundtrip(gemm, {"a": a}, inits={"b": RNG.standard_normal((5, 4)).astype(np.float32), "c": c})


def test_softmax_opset11_flattens_and_layer_norm_roundtrip():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    e = np.exp(x.reshape(2, -1))  # before opset 13: softmax over the flattened tail
    flat = (e / e.sum(1, keepdims=True)).reshape(x.shape)
    _roundtrip(helper.make_node("Softmax", ["x"], ["y"], axis=1), {"x": x}, opset=11,
               expected=[flat])
    node = helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=1)
    scale = RNG.standard_normal((3, 4)).astype(np.float32)
    _roundtrip(node, {"x": x}, inits={"s": scale, "b": scale * 0.5})


def test_resize_linear_roundtrip():
    x = RNG.standard_normal((1, 2, 4, 5)).astype(np.float32)
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear")
    _roundtrip(node, {"x": x}, opset=13, inits={"s": np.array([1, 1, 1.5, 0.8], np.float32)})
