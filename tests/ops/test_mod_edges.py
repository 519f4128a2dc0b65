"""ONNX Mod (fmod=0) on floats at its edges (signed zeros, infinite divisors, NaN), in real
OpenVINO and in the shim, against Python's own float %."""

from __future__ import annotations

import math

import numpy as np
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

X = [0.0, -0.0, -3.0, 3.0, -1.0, 1.0, 0.0, 7.5, -7.5, math.inf, 1.0, math.nan]
Y = [-2.0, 2.0, math.inf, math.inf, -math.inf, -math.inf, math.inf, -2.0, 2.0, 2.0, math.nan, 2.0]


def _python_mod(a: float, b: float) -> float:
    try:
        return a % b
    except ZeroDivisionError:
        return math.nan


def test_floor_mod_edges() -> None:
    x, y = np.array(X, np.float32), np.array(Y, np.float32)
    model = make_model([helper.make_node("Mod", ["x", "y"], ["z"])],
                       [("x", TensorProto.FLOAT, [len(X)]), ("y", TensorProto.FLOAT, [len(X)])],
                       [("z", TensorProto.FLOAT, None)], opset=13)
    expected = np.array([_python_mod(a, b) for a, b in zip(X, Y)], np.float32)
    for engine in ("openvino", "shim"):
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([x, y])
        np.testing.assert_array_equal(got, expected, err_msg=engine)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected), err_msg=engine)
