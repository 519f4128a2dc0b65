"""Elementwise ops: evaluate vs numpy, shape/type inference, ONNX -> IR -> OpenVINO round trips."""

from __future__ import annotations

import math

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.ops import Op
from converter.ops.elementwise.special import erf

OPS = Op.registered_ops


def run(op: str, *inputs, **attrs) -> np.ndarray:
    cls = OPS[op]
    return cls.evaluate({**cls.defaults, **attrs}, [np.asarray(x) for x in inputs])[0]


# -- evaluate ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("shape", "dtype"), [
    ((2, 3, 41, 57), np.float32),  # rows of zeros and a tail
    ((4096,), np.float64), ((7,), np.float32), ((3, 5000), np.int32),
])
def test_relu_in_rows_matches_maximum_with_zero(shape, dtype):
    x = (np.random.default_rng(3).standard_normal(shape) * 4).astype(dtype)
    if dtype != np.int32:
        x.flat[[0, -1]] = np.nan, -0.0
    expected = np.maximum(x, np.zeros((), dtype))
    np.testing.assert_array_equal(run("ReLU", x), expected)
    np.testing.assert_array_equal(run("ReLU", x[..., ::2]), expected[..., ::2])  # strided
    y = x.copy()
    OPS["ReLU"].inplace({}, [None])(y)
    np.testing.assert_array_equal(y, expected)


def test_divide_integer_truncates_or_floors():
    a = np.array([7, -7, 7, -7, 6], np.int32)
    b = np.array([2, 2, -2, -2, 3], np.int32)
    trunc = run("Divide", a, b, m_pythondiv=False)
    assert trunc.dtype == np.int32
    np.testing.assert_array_equal(trunc, [3, -3, -3, 3, 2])
    np.testing.assert_array_equal(run("Divide", a, b, m_pythondiv=True), [3, -4, -4, 3, 2])
    f = run("Divide", np.float16([1, 3]), np.float16([2, 4]))
    assert f.dtype == np.float16
    np.testing.assert_allclose(f, [0.5, 0.75])


def test_power_integer_and_negative_exponent():
    base, exponent = np.int64([2, -1, -1, 1, 3]), np.int64([10, -3, -2, -5, -1])
    out = run("Power", base, exponent)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [1024, -1, 1, 1, 0])
    np.testing.assert_allclose(run("Power", np.float32([4]), np.float32([0.5])), [2.0])


def test_mod_and_floor_mod_signs():
    a, b = np.array([-7, 7, -7], np.int32), np.array([3, -3, -3], np.int32)
    np.testing.assert_array_equal(run("Mod", a, b), np.fmod(a, b))
    np.testing.assert_array_equal(run("FloorMod", a, b), np.mod(a, b))
    squared = run("SquaredDifference", np.float32([1, 5]), np.float32([3, 1]))
    np.testing.assert_allclose(squared, [4, 16])


@pytest.mark.parametrize(("op", "fn"), [
    ("Equal", np.equal), ("NotEqual", np.not_equal), ("Less", np.less),
    ("LessEqual", np.less_equal), ("Greater", np.greater), ("GreaterEqual", np.greater_equal),
])
def test_comparisons_are_boolean(op, fn):
    a, b = np.array([[1, 2, 3]], np.int32), np.array([[2], [2]], np.int32)
    out = run(op, a, b)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, fn(a, b))
    assert OPS[op].infer_types({}, [np.dtype(np.int32)] * 2) == [np.dtype(np.bool_)]


def test_logical_and_bitwise():
    p, q = np.array([True, True, False]), np.array([True, False, False])
    np.testing.assert_array_equal(run("LogicalXor", p, q), [False, True, False])
    np.testing.assert_array_equal(run("LogicalNot", p), ~p)
    x = np.array([12, 10], np.uint8)
    np.testing.assert_array_equal(run("BitwiseAnd", x, np.uint8(6)), [4, 2])
    np.testing.assert_array_equal(run("BitwiseNot", x), ~x)
    np.testing.assert_array_equal(run("BitwiseNot", p), ~p)
    assert run("BitwiseLeftShift", x, np.uint8(2)).dtype == np.uint8
    shifted = run("BitwiseRightShift", np.int32([-8, 8]), np.int32([1, 2]))
    np.testing.assert_array_equal(shifted, [-4, 2])


def test_select_broadcasts_and_keeps_type():
    out = run("Select", np.array([[True], [False]]), np.int8([1, 2]), np.int8(0))
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [[1, 2], [0, 0]])


def test_unary_keeps_dtype():
    assert run("Sqrt", np.int32([9, 10])).dtype == np.int32
    np.testing.assert_array_equal(run("Sqrt", np.int32([9, 10])), [3, 3])
    assert run("Exp", np.float16([0, 1])).dtype == np.float16
    np.testing.assert_array_equal(run("Ceiling", np.int64([3])), [3])
    np.testing.assert_array_equal(run("Negative", np.int8([3, -4])), [-3, 4])


def test_erf_matches_math_erf():
    x = np.concatenate([np.linspace(-7, 7, 2001), [0.0, -0.0, 1e-30, np.inf, -np.inf]])
    expected = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(erf(x), expected, rtol=5e-15, atol=1e-300)
    assert run("Erf", np.float32([0.5])).dtype == np.float32
    assert np.isnan(erf(np.array([np.nan]))[0])


def test_round_modes():
    x = np.float32([-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5, 0.49999997])
    np.testing.assert_array_equal(run("Round", x), [-4, -2, -2, 0, 1, 2, 2, 2, 0])
    np.testing.assert_array_equal(run("Round", x, mode="half_away_from_zero"),
                                  [-5, -2, -2, 1, 1, 2, 2, 3, 0])


def test_float_tests():
    x = np.float32([np.inf, -np.inf, np.nan, 1.0])
    np.testing.assert_array_equal(run("IsInf", x), [True, True, False, False])
    positive = run("IsInf", x, detect_negative=False)
    np.testing.assert_array_equal(positive, [True, False, False, False])
    np.testing.assert_array_equal(run("IsNaN", x), [False, False, True, False])
    np.testing.assert_array_equal(run("IsFinite", x), [False, False, False, True])


def test_clamp_float_and_integer_bounds():
    np.testing.assert_allclose(run("Clamp", np.float32([-1, 3, 9]), min=0.0, max=6.0), [0, 3, 6])
    out = run("Clamp", np.int32([-5, 0, 5]), min=-1.5, max=2.5)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [-1, 0, 2])
    wide = run("Clamp", np.int8([-100, 100]), min=-1e10, max=1e10)
    np.testing.assert_array_equal(wide, [-100, 100])


def test_activations_match_numpy():
    x = np.linspace(-5, 5, 11).astype(np.float32)
    sig = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(run("Sigmoid", x), sig, rtol=1e-6)
    elu = np.where(x > 0, x, 0.5 * np.expm1(x))
    np.testing.assert_allclose(run("Elu", x, alpha=0.5), elu, rtol=1e-6)
    np.testing.assert_allclose(run("HardSigmoid", x, np.float32(0.2), np.float32(0.5)),
                               np.clip(0.2 * x + 0.5, 0, 1), rtol=1e-6)
    np.testing.assert_allclose(run("Selu", x, np.float32(1.5), np.float32(2.0)),
                               2 * np.where(x > 0, x, 1.5 * np.expm1(x)), rtol=1e-6)
    np.testing.assert_allclose(run("Swish", x), x * sig, rtol=1e-6)
    np.testing.assert_allclose(run("Swish", x, np.float32(2)), x / (1 + np.exp(-2 * x)), rtol=1e-6)
    np.testing.assert_allclose(run("HSwish", x), x * np.clip(x + 3, 0, 6) / 6, rtol=1e-6)
    np.testing.assert_allclose(run("HSigmoid", x), np.clip(x + 3, 0, 6) / 6, rtol=1e-6)
    softplus = np.log1p(np.exp(x))
    np.testing.assert_allclose(run("SoftPlus", x), softplus, rtol=1e-6)
    np.testing.assert_allclose(run("Mish", x), x * np.tanh(softplus), rtol=1e-6)
    np.testing.assert_allclose(run("SoftSign", x), x / (1 + np.abs(x)), rtol=1e-6)
    gelu = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(float)])
    np.testing.assert_allclose(run("Gelu", x), gelu, rtol=1e-6)
    tanh = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(run("Gelu", x, approximation_mode="tanh"), tanh, rtol=1e-5)
    for op in ("Sigmoid", "SoftPlus", "Mish", "Gelu", "Elu"):
        assert run(op, x.astype(np.float16)).dtype == np.float16
    assert run("SoftPlus", np.float32([1000]))[0] == 1000


def test_prelu_per_channel_and_numpy_slopes():
    x = -np.ones((1, 3, 2), np.float32)
    per_channel = run("PReLU", x, np.float32([1, 2, 3]))
    np.testing.assert_allclose(per_channel[0, :, 0], [-1, -2, -3])
    last_axis = run("PReLU", x, np.float32([[5, 6]]))
    np.testing.assert_allclose(last_axis[0, 0], [-5, -6])


def test_convert_like():
    out = run("ConvertLike", np.float64([1.7, -2.5]), np.int32([0]))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [1, -2])


# -- shape and type inference ------------------------------------------------------------------
def test_shape_inference_with_dynamic_dims():
    assert OPS["Add"].infer_shapes({}, [(2, -1, 3), (1, 4, 1)], [None, None]) == [(2, 4, 3)]
    assert OPS["Less"].infer_shapes({}, [(-1, 3), (3,)], [None, None]) == [(-1, 3)]
    assert OPS["Add"].infer_shapes({}, [None, (3,)], [None, None]) == [None]
    assert OPS["Select"].infer_shapes({}, [(-1, 1), (1, 5), ()], [None] * 3) == [(-1, 5)]
    assert OPS["Select"].infer_types({}, [np.dtype(bool), np.dtype(np.int8)] * 2)[0] == np.int8
    assert OPS["Gelu"].infer_shapes({}, [(-1, 8)], [None]) == [(-1, 8)]
    assert OPS["IsNaN"].infer_types({}, [np.dtype(np.float32)]) == [np.dtype(bool)]
    like = OPS["ConvertLike"].infer_types({}, [np.dtype(np.float64), np.dtype(np.int8)])
    assert like == [np.int8]
    with pytest.raises(ValueError, match="broadcast"):
        OPS["Multiply"].infer_shapes({}, [(2, 3), (4, 3)], [None, None])


# -- ONNX -> IR -> OpenVINO -------------------------------------------------------------------
def _model(nodes, inputs, outputs, opset=17) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "t",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _run_both(model: onnx.ModelProto, feeds: list[np.ndarray]) -> tuple[list, list]:
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("openvino")
    from converter.onnx_backend import ExtgenBackend

    got = ExtgenBackend.prepare(model, engine="openvino").run(feeds)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, {i.name: x for i, x in zip(sess.get_inputs(), feeds, strict=True)})
    return list(got), want


def test_roundtrip_float_activations():
    f = TensorProto.FLOAT
    nodes = [
        helper.make_node("LeakyRelu", ["x"], ["a"], alpha=0.1),
        helper.make_node("PRelu", ["a", "slope"], ["b"]),
        helper.make_node("Celu", ["b"], ["c"], alpha=2.0),
        helper.make_node("Shrink", ["c"], ["d"], bias=0.5, lambd=0.3),
        helper.make_node("HardSigmoid", ["x"], ["e"], alpha=0.3, beta=0.4),
        helper.make_node("Clip", ["x", "lo", "hi"], ["g"]),
        helper.make_node("Mean", ["d", "e", "g"], ["h"]),
        helper.make_node("ThresholdedRelu", ["x"], ["t"], alpha=0.5),
        helper.make_node("Gelu", ["t"], ["u"], approximate="tanh"),
        helper.make_node("Reciprocal", ["slope"], ["r"]),
        helper.make_node("Pow", ["x", "two"], ["p"]),
    ]
    model = _model(nodes, [("x", f, [2, 3, 4]), ("slope", f, [4]), ("lo", f, []), ("hi", f, []),
                           ("two", TensorProto.INT64, [])],
                   [("h", f, [2, 3, 4]), ("u", f, [2, 3, 4]), ("r", f, [4]), ("p", f, [2, 3, 4])],
                   opset=20)
    rng = np.random.default_rng(0)
    feeds = [rng.standard_normal((2, 3, 4)).astype(np.float32), np.float32([0.5, 2, -1, 3]),
             np.array(-0.5, np.float32), np.array(0.7, np.float32), np.array(2, np.int64)]
    got, want = _run_both(model, feeds)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_roundtrip_integer_and_boolean_ops():
    i = TensorProto.INT32
    nodes = [
        helper.make_node("Div", ["a", "b"], ["q"]),
        helper.make_node("Mod", ["a", "b"], ["m"], fmod=0),
        helper.make_node("Max", ["a", "b", "q"], ["mx"]),
        helper.make_node("Less", ["a", "b"], ["lt"]),
        helper.make_node("Not", ["lt"], ["nlt"]),
        helper.make_node("Where", ["nlt", "a", "b"], ["w"]),
        helper.make_node("Constant", [], ["lo"], value=helper.make_tensor("lo", i, [], [-2])),
        helper.make_node("Clip", ["a", "lo"], ["c"]),
    ]
    model = _model(nodes, [("a", i, [6]), ("b", i, [6])],
                   [("q", i, [6]), ("m", i, [6]), ("mx", i, [6]), ("w", i, [6]), ("c", i, [6])],
                   opset=13)
    feeds = [np.int32([7, -7, 7, -7, 5, 0]), np.int32([2, 2, -2, -2, 5, 3])]
    got, want = _run_both(model, feeds)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_roundtrip_dropout_mask_and_isinf():
    f = TensorProto.FLOAT
    nodes = [
        helper.make_node("Constant", [], ["hi"], value=helper.make_tensor("hi", f, [], [2.0])),
        helper.make_node("Dropout", ["x"], ["y", "mask"]),
        helper.make_node("IsInf", ["y"], ["inf"], detect_negative=0),
        helper.make_node("Round", ["x"], ["r"]),
        helper.make_node("Clip", ["z", "", "hi"], ["c"]),
    ]
    model = _model(nodes, [("x", f, [5]), ("z", f, [5])],
                   [("y", f, [5]), ("mask", TensorProto.BOOL, [5]),
                    ("inf", TensorProto.BOOL, [5]), ("r", f, [5]), ("c", f, [5])], opset=13)
    # Clip without min leaves -inf as it is (ONNX would give the lowest float): finite z
    feeds = [np.float32([np.inf, -np.inf, 2.5, -0.5, 1.5]), np.float32([-9, 0, 1.5, 2.5, 9])]
    got, want = _run_both(model, feeds)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
