"""ONNX reductions over axes given at run time with keepdims=0: the output keeps a static rank
(OpenVINO's CPU refuses the dynamic rank its own inference gives), in real OpenVINO and in the
shim, against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

X = np.random.default_rng(18).uniform(0.5, 2, (3, 4, 5, 2)).astype(np.float32)


@pytest.mark.parametrize("axes", [[0, 2], [3, -3], [1]])
@pytest.mark.parametrize(("op", "fn"), [("ReduceSum", np.sum),
                                        ("ReduceLogSum", lambda x, axis: np.log(np.sum(x, axis)))])
def test_reduce_over_runtime_axes(op, fn, axes) -> None:
    node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=0)
    model = make_model([node], [("x", TensorProto.FLOAT, list(X.shape)),
                                ("axes", TensorProto.INT64, [len(axes)])],
                       [("y", TensorProto.FLOAT, None)], opset=18)
    expected = fn(X, axis=tuple(a % 4 for a in axes))
    for engine in ("openvino", "shim"):
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([X, np.array(axes, np.int64)])
        assert got.shape == expected.shape, engine
        np.testing.assert_allclose(got, expected, rtol=1e-5, err_msg=engine)
