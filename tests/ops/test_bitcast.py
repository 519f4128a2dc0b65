"""ONNX BitCast in standard ops (a float's bit pattern from its sign, binade and significand, and
back), in real OpenVINO and in the shim, against numpy's view of the same bytes. OpenVINO's CPU
runs f64 in f32, so the 64-bit float casts are checked in the shim only."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

F32 = np.array([1.0, -2.5, 3.75, 0.0, -0.0, np.inf, -np.inf, 3.4e38, 1.2e-38, 1e-40, -7e-45],
               np.float32)
F16 = np.array([1.0, -2.5, 65504, -0.0, np.inf, 6e-5, 6e-8], np.float16)
F64 = np.array([1.0, -2.5, np.pi, -0.0, np.inf, 1e-300, 5e-324, -1.7e308])


def _bitcast(x: np.ndarray, to: int, engines=("openvino", "shim")) -> list[np.ndarray]:
    source = {np.float32: TensorProto.FLOAT, np.int32: TensorProto.INT32,
              np.uint32: TensorProto.UINT32, np.float16: TensorProto.FLOAT16,
              np.int16: TensorProto.INT16, np.float64: TensorProto.DOUBLE,
              np.int64: TensorProto.INT64, np.int8: TensorProto.INT8}[x.dtype.type]
    model = make_model([helper.make_node("BitCast", ["x"], ["y"], to=to)],
                       [("x", source, list(x.shape))], [("y", to, None)], opset=26)
    return [ExtgenBackend.prepare(model, engine=e).run([x])[0] for e in engines]


@pytest.mark.parametrize(("x", "to", "dtype", "engines"), [
    (F32, TensorProto.INT32, np.int32, ("openvino", "shim")),
    (F32, TensorProto.UINT32, np.uint32, ("openvino", "shim")),
    (F16, TensorProto.INT16, np.int16, ("openvino", "shim")),
    (F64, TensorProto.INT64, np.int64, ("shim",))])
def test_float_to_bits_and_back(x, to, dtype, engines) -> None:
    for got in _bitcast(x, to, engines):
        np.testing.assert_array_equal(got, x.view(dtype))
    back = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16,
            np.float64: TensorProto.DOUBLE}[x.dtype.type]
    for got in _bitcast(x.view(dtype), back, engines):
        np.testing.assert_array_equal(got.view(dtype), x.view(dtype))  # -0 and inf kept


def test_nan_becomes_the_quiet_nan() -> None:
    quiet = np.array([0x7FC00000], np.uint32).view(np.float32)
    for got in _bitcast(np.array([np.nan], np.float32), TensorProto.INT32):
        np.testing.assert_array_equal(got, quiet.view(np.int32))


def test_integers_of_one_width_wrap() -> None:
    x = np.array([-1, -128, 127, 0], np.int8)
    for got in _bitcast(x, TensorProto.UINT8):
        np.testing.assert_array_equal(got, [255, 128, 127, 0])
