"""ONNX RoiAlign (opset 10; opset 16 with half_pixel and output_half_pixel; fixed and adaptive
sampling) through ROIAlign-9 in real OpenVINO and in the shim, against onnxruntime within 1e-5;
in 'max' mode, where OpenVINO's op pools otherwise than onnxruntime, the shim matches OpenVINO."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

RNG = np.random.default_rng(9)
FEEDS = [RNG.standard_normal((2, 3, 10, 12)).astype(np.float32),
         np.array([[0, 0, 9, 9], [1.3, 2.2, 7.9, 5.1], [-2, 3, 14, 11], [4, 4, 4.2, 4.1]],
                  np.float32),
         np.array([0, 1, 1, 0], np.int64)]


def _model(opset: int, **attrs):
    node = helper.make_node("RoiAlign", ["x", "rois", "idx"], ["y"], output_height=3,
                            output_width=4, spatial_scale=0.8, **attrs)
    return make_model([node], [("x", TensorProto.FLOAT, [2, 3, 10, 12]),
                               ("rois", TensorProto.FLOAT, [4, 4]),
                               ("idx", TensorProto.INT64, [4])],
                      [("y", TensorProto.FLOAT, None)], opset=opset)


@pytest.mark.parametrize(("opset", "attrs"), [
    (10, {}),
    (10, {"sampling_ratio": 2}),
    (16, {}),
    (16, {"coordinate_transformation_mode": "output_half_pixel"}),
    (16, {"coordinate_transformation_mode": "half_pixel", "sampling_ratio": 3}),
])
def test_roi_align_matches_onnxruntime(opset: int, attrs: dict) -> None:
    model = _model(opset, **attrs)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, dict(zip(["x", "rois", "idx"], FEEDS)))[0]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(FEEDS)[0]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=engine)


def test_max_mode_shim_matches_openvino() -> None:
    model = _model(16, mode="max", sampling_ratio=2)
    ours = ExtgenBackend.prepare(model, engine="shim").run(FEEDS)[0]
    theirs = ExtgenBackend.prepare(model, engine="openvino").run(FEEDS)[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
