"""ONNX MaxRoiPool through ROIPooling-2 in real OpenVINO and in the shim, against onnxruntime:
boxes inside, across and beyond the map, degenerate ones, two images."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

RNG = np.random.default_rng(2)


@pytest.mark.parametrize(("pooled", "scale"), [([2, 3], 1.0), ([3, 3], 0.5), ([1, 4], 0.25)])
def test_max_roi_pool_matches_onnxruntime(pooled: list[int], scale: float) -> None:
    node = helper.make_node("MaxRoiPool", ["x", "rois"], ["y"], pooled_shape=pooled,
                            spatial_scale=scale)
    model = make_model([node], [("x", TensorProto.FLOAT, [2, 3, 8, 10]),
                                ("rois", TensorProto.FLOAT, [5, 5])],
                       [("y", TensorProto.FLOAT, None)], opset=13)
    rois = np.array([[0, 0, 0, 9, 7], [1, 2.4, 1.6, 6.5, 5.5], [1, -3, -2, 12, 11],
                     [0, 5, 5, 5, 5], [1, 7, 6, 3, 2]], np.float32)
    rois[:, 1:] /= scale
    feeds = [RNG.standard_normal((2, 3, 8, 10)).astype(np.float32), rois]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"x": feeds[0], "rois": feeds[1]})[0]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(feeds)[0]
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, err_msg=engine)
