"""bfloat16 through the kernels that refused it: ReduceMax/ReduceMin's identity values,
Einsum (numpy has no bfloat16 loop: summed in f32) and a bfloat16 constant written to the
.bin, in real OpenVINO and in the shim."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

BF16 = ml_dtypes.bfloat16
X = np.array([[1.5, -2.0, 3.25], [0.5, 8.0, -1.0]], BF16)


def _run(nodes, outputs, initializers=()) -> list:
    model = make_model(nodes, [("x", TensorProto.BFLOAT16, [2, 3])],
                       [(o, TensorProto.BFLOAT16, None) for o in outputs],
                       initializers=initializers, opset=18)
    return [ExtgenBackend.prepare(model, engine=e).run([X]) for e in ("openvino", "shim")]


def test_reduce_max_and_min_of_bfloat16() -> None:
    nodes = [helper.make_node("ReduceMax", ["x"], ["hi"], keepdims=0),
             helper.make_node("ReduceMin", ["x", "axes"], ["lo"], keepdims=0)]
    for high, low in _run(nodes, ["hi", "lo"], {"axes": np.array([1], np.int64)}):
        assert high.dtype == np.dtype(BF16)
        assert float(high) == 8.0
        np.testing.assert_array_equal(low.astype(np.float32), [-2.0, -1.0])


def test_einsum_of_bfloat16() -> None:
    for (y,) in _run([helper.make_node("Einsum", ["x"], ["y"], equation="ij->j")], ["y"]):
        np.testing.assert_array_equal(y.astype(np.float32), [2.0, 6.0, 2.25])


def test_a_bfloat16_constant_in_the_bin() -> None:
    bias = np.array([0.25, -0.5, 1.0], BF16)
    for (y,) in _run([helper.make_node("Add", ["x", "b"], ["y"])], ["y"], {"b": bias}):
        np.testing.assert_array_equal(y.astype(np.float32),
                                      [[1.75, -2.5, 4.25], [0.75, 7.5, 0.0]])
