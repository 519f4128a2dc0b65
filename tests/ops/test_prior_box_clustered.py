"""PriorBoxClustered-1 (converter.ops.detection.prior_box_clustered) against OpenVINO's CPU
plugin folding the same op, and its shape inference."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ops
import pytest

from converter.graph.shape import DYN
from converter.ops.op import Op

PriorBoxClustered = Op.registered_ops["PriorBoxClustered"]
BOXES = {"width": [4.0, 10.5, 7.0], "height": [6.0, 3.0, 12.25]}


def _openvino(attrs: dict, hw, image) -> np.ndarray:
    dummy = ops.parameter([1], np.float32)
    boxes = ops.prior_box_clustered(ops.constant(np.array(hw, np.int64)),
                                    ops.constant(np.array(image, np.int64)), attrs)
    model = ov.Model([ops.add(boxes, ops.multiply(dummy, ops.constant(np.float32(0))))], [dummy])
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled({0: np.zeros(1, np.float32)})[0]


@pytest.mark.parametrize("attrs", [
    {"clip": False, "variance": [0.1, 0.1, 0.2, 0.2]},
    {"clip": True, "variance": [0.1, 0.2, 0.3, 0.4], "step_w": 6.0, "step_h": 9.0},
    {"clip": False, "variance": [0.1, 0.1, 0.2, 0.2], "step": 5.0, "offset": 0.25},
    {"clip": True, "variance": [0.3]},
    {"clip": True},
])
@pytest.mark.parametrize(("hw", "image"), [((2, 2), (16, 16)), ((3, 5), (30, 41))])
def test_prior_box_clustered_matches_openvino(attrs, hw, image):
    attrs = {**PriorBoxClustered.defaults, **BOXES, **attrs}
    ours = PriorBoxClustered.compute(attrs, [np.array(hw, np.int64),
                                             np.array(image, np.int64)])[0]
    ref = _openvino({k: v for k, v in attrs.items() if k != "step" or v}, hw, image)
    assert ours.shape == ref.shape == (2, 4 * hw[0] * hw[1] * 3)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-6)


def test_prior_box_clustered_shape_inference():
    attrs = {**PriorBoxClustered.defaults, **BOXES}
    assert PriorBoxClustered.infer_shapes(attrs, [(2,), (2,)], [np.array([3, 4]), None]) == [
        (2, 144)]
    assert PriorBoxClustered.infer_shapes(attrs, [(2,), (2,)], [None, None]) == [(2, DYN)]
