"""ONNX ops of transformer models (RMSNormalization, Hardmax), decomposed into opset ops, in
real OpenVINO and in the shim against onnxruntime within 1e-5."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

RNG = np.random.default_rng(29)


def check(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    """model's outputs from both engines equal onnxruntime's within 1e-5."""
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(list(feeds.values()))
        assert len(got) == len(expected), engine
        for e, g in zip(expected, got):
            assert g.shape == e.shape, engine
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=engine)


def _floats(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("axis", [-1, -2, 0, 2])
def test_rms_normalization(axis: int) -> None:
    shape = [2, 3, 4]
    scale_shape = shape[axis:]
    node = helper.make_node("RMSNormalization", ["x", "s"], ["y"], axis=axis, epsilon=1e-3)
    model = make_model([node], [("x", TensorProto.FLOAT, shape),
                                ("s", TensorProto.FLOAT, scale_shape)],
                       [("y", TensorProto.FLOAT, None)], opset=23)
    check(model, {"x": _floats(*shape), "s": _floats(*scale_shape)})


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_hardmax_marks_the_first_maximum(axis: int) -> None:
    node = helper.make_node("Hardmax", ["x"], ["y"], axis=axis)
    model = make_model([node], [("x", TensorProto.FLOAT, [3, 4, 5])],
                       [("y", TensorProto.FLOAT, None)], opset=13)
    x = RNG.integers(0, 3, [3, 4, 5]).astype(np.float32)  # many ties
    check(model, {"x": x})
