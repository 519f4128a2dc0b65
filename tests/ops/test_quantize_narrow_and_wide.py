"""QuantizeLinear to the 2-bit types (int2 carried in i8, uint2) and float4_e2m1, and to uint16
rounded exactly at halves, in real OpenVINO and in the shim, against values worked out here;
Cast to float4_e2m1 takes NaN to -0 in both engines."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

ENGINES = ("openvino", "shim")
# no exact half after the zero point is added: FakeQuantize (the 8-bit form, as OpenVINO's
# frontend builds it) rounds x / scale + zero, ONNX round(x / scale) + zero
X = np.array([0.0, 2.5, 4.8, -3.0, -9.0, 7.0, 1.2, -1.2], np.float32)


def _quantize(target: int, scale: float, zero: np.ndarray | None) -> list:
    names = ["x", "scale"] + ([] if zero is None else ["zero"])
    inits = {"scale": np.float32(scale)} | ({} if zero is None else {"zero": zero})
    node = helper.make_node("QuantizeLinear", names, ["y"],
                            **({"output_dtype": target} if zero is None else {}))
    model = make_model([node], [("x", TensorProto.FLOAT, [X.size])], [("y", target, [X.size])],
                       initializers=inits, opset=25)
    return [ExtgenBackend.prepare(model, engine=e).run([X])[0] for e in ENGINES]


@pytest.mark.parametrize(("target", "dtype", "zero", "expected"), [
    # round half to even of x / 2, plus the zero point, clamped to [-2, 1] / [0, 3]
    (TensorProto.INT2, ml_dtypes.int2, None, [0, 1, 1, -2, -2, 1, 1, -1]),
    (TensorProto.UINT2, ml_dtypes.uint2, np.array(1, ml_dtypes.uint2), [1, 2, 3, 0, 0, 3, 2, 0])])
def test_quantize_to_two_bits(target, dtype, zero, expected) -> None:
    for got in _quantize(target, 2.0, zero):
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got.astype(np.int8), expected)


def test_quantize_to_float4_rounds_and_saturates() -> None:
    # x / 2 = 0, 1.25, 2.4, -1.5, -4.5, 3.5, 0.6, -0.6 on the grid 0 0.5 1 1.5 2 3 4 6, half to
    # the even code: 1.25 -> 1, 2.4 -> 2, 4.5 -> 4, 3.5 -> 4
    for got in _quantize(TensorProto.FLOAT4E2M1, 2.0, None):
        np.testing.assert_array_equal(got.astype(np.float32), [0, 1, 2, -1.5, -4, 4, 0.5, -0.5])


def test_quantize_to_uint16_rounds_halves_to_even() -> None:
    # 2.5 / 2 = 1.25 -> 1 and -3 / 2 = -1.5 -> -2 around the zero point 32767 (an exact half
    # that FakeQuantize's interval arithmetic over 65536 levels missed)
    for got in _quantize(TensorProto.UINT16, 2.0, np.array(32767, np.uint16)):
        np.testing.assert_array_equal(got[[1, 3, 6]], [32768, 32765, 32768])


def test_cast_nan_to_float4_is_negative_zero() -> None:
    model = make_model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT4E2M1)],
                       [("x", TensorProto.FLOAT, [3])], [("y", TensorProto.FLOAT4E2M1, [3])],
                       opset=23)
    x = numpy_helper.from_array(np.array([np.nan, 0.7, -np.inf], np.float32), "x")
    for engine in ENGINES:
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([x])
        values = numpy_helper.to_array(got).astype(np.float32)
        np.testing.assert_array_equal(values, [-0.0, 0.5, -6.0], err_msg=engine)
        assert np.signbit(values[0]), engine
