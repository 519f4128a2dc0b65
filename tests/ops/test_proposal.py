"""Proposal-4 against OpenVINO's CPU plugin on the same random RPN outputs: Caffe's and
TensorFlow's box conventions, clipping and normalising, both forms of image_shape, and fewer
survivors than post_nms_topn (OpenVINO leaves the scores of the unused rows unset, so only the
kept rows' scores are compared)."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset4 as ops4
import pytest

from converter.ops.op import Op

Proposal = Op.registered_ops["Proposal"]
BASE = {"base_size": 16, "pre_nms_topn": 60, "post_nms_topn": 20, "nms_thresh": 0.6,
        "feat_stride": 16, "min_size": 4, "ratio": [0.5, 1.0], "scale": [2.0, 4.0, 8.0]}
UNSIGNED = ("base_size", "pre_nms_topn", "post_nms_topn", "feat_stride", "min_size")


def _openvino(attrs: dict, inputs: list[np.ndarray]) -> list[np.ndarray]:
    params = [ops4.parameter(list(x.shape), np.float32) for x in inputs]
    typed = {k: np.uint32(v) if k in UNSIGNED else np.array(v, np.float32)
             if isinstance(v, list) else np.float32(v) if isinstance(v, float) else v
             for k, v in attrs.items()}
    model = ov.Model(ops4.proposal(*params, typed).outputs(), params)
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return list(compiled(inputs).values())


@pytest.mark.parametrize("extra", [
    {}, {"clip_after_nms": True, "normalize": True}, {"framework": "tensorflow"},
    {"framework": "tensorflow", "clip_after_nms": True, "normalize": True},
    {"clip_before_nms": False, "box_size_scale": 2.0, "box_coordinate_scale": 3.0},
    {"pre_nms_topn": 10},
], ids=["caffe", "clip-normalize", "tf", "tf-clip-normalize", "scales", "few"])
@pytest.mark.parametrize("image", [[80, 112, 1.0], [80, 112, 0.5, 2.0]], ids=["3", "4"])
def test_proposal_matches_openvino(extra: dict, image: list[float]) -> None:
    rng = np.random.default_rng(5)
    attrs = {**Proposal.defaults, **BASE, **extra}
    inputs = [rng.random((2, 12, 5, 7)).astype(np.float32),
              (rng.standard_normal((2, 24, 5, 7)) * 0.3).astype(np.float32),
              np.array(image, np.float32)]
    rois, scores = Proposal.compute(attrs, inputs)
    want_rois, want_scores = _openvino(attrs, inputs)
    np.testing.assert_allclose(rois, want_rois, rtol=1e-5, atol=1e-4)
    kept = rois.reshape(2, -1, 5)[:, :, 3] > 0  # a kept box has x1 > 0
    assert (kept.sum() < 40) == ("pre_nms_topn" in extra)
    np.testing.assert_allclose(scores[kept.ravel()], want_scores[kept.ravel()], rtol=1e-6)
