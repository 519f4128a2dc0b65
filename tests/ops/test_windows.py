"""ONNX HannWindow, HammingWindow and BlackmanWindow, periodic and symmetric, in real OpenVINO
and in the shim against onnxruntime within 1e-5."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model


@pytest.mark.parametrize("periodic", [0, 1])
@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
def test_cosine_window(op: str, periodic: int) -> None:
    node = helper.make_node(op, ["size"], ["y"], periodic=periodic)
    model = make_model([node], [("size", TensorProto.INT64, [])],
                       [("y", TensorProto.FLOAT, None)], opset=17)
    size = np.array(11, np.int64)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"size": size})[0]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run([size])[0]
        assert got.shape == expected.shape == (11,), engine
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=engine)
