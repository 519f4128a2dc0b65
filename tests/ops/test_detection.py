"""Detection ops: PriorBox against a hand computation and OpenVINO, DetectionOutput against a
hand-made case and OpenVINO's CPU plugin (the same inputs: the rows must agree in order)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from converter.graph.shape import DYN
from converter.ops.op import Op

PriorBox = Op.registered_ops["PriorBox"]
DetectionOutput = Op.registered_ops["DetectionOutput"]

SSD_PRIORS = {"min_size": [4.0], "max_size": [9.0], "aspect_ratio": [2.0], "flip": True,
              "clip": False, "step": 8.0, "offset": 0.5, "variance": [0.1, 0.1, 0.2, 0.2]}


def _priors(attrs: dict, hw, image) -> np.ndarray:
    return PriorBox.compute({**PriorBox.defaults, **attrs},
                            [np.array(hw, np.int64), np.array(image, np.int64)])[0]


# -- PriorBox --------------------------------------------------------------------------------------
def test_prior_box_2x2_by_hand():
    """2x2 map of a 16x16 image, step 8: centres 4 and 12; per cell the min box (side 4), the
    sqrt(4 * 9) = 6 box, then ratio 2 and its flip 1/2 (sides 4*sqrt(2) x 4/sqrt(2))."""
    out = _priors(SSD_PRIORS, [2, 2], [16, 16])
    assert out.shape == (2, 4 * 2 * 2 * 4) and out.dtype == np.float32
    r = math.sqrt(2.0)
    halves = [(2, 2), (3, 3), (2 * r, 2 / r), (2 / r, 2 * r)]
    expected = []
    for h in range(2):
        for w in range(2):
            cx, cy = (w + 0.5) * 8, (h + 0.5) * 8
            for hw_, hh in halves:
                expected += [(cx - hw_) / 16, (cy - hh) / 16, (cx + hw_) / 16, (cy + hh) / 16]
    np.testing.assert_allclose(out[0], expected, rtol=0, atol=1e-6)
    np.testing.assert_allclose(out[1], [0.1, 0.1, 0.2, 0.2] * 16, rtol=0, atol=1e-7)
    # cell (0, 0)'s first box and the last cell's last box, written out
    np.testing.assert_allclose(out[0, :4], [2 / 16, 2 / 16, 6 / 16, 6 / 16], atol=1e-7)
    np.testing.assert_allclose(out[0, -4:], [(12 - 2 / r) / 16, (12 - 2 * r) / 16,
                                             (12 + 2 / r) / 16, (12 + 2 * r) / 16], atol=1e-6)


def test_prior_box_2x2_clip_and_derived_step_by_hand():
    """No step: the centres are (w + 0.5) * IW / W; clip keeps every value in [0, 1]; one variance
    fills the second row."""
    attrs = {"min_size": [10.0], "clip": True, "variance": [0.5]}
    out = _priors(attrs, [2, 2], [16, 20])  # image 16 high, 20 wide: cells 8 x 10
    boxes = out[0].reshape(4, 4)
    centres = [(5, 4), (15, 4), (5, 12), (15, 12)]
    expected = [[max((cx - 5) / 20, 0), max((cy - 5) / 16, 0),
                 min((cx + 5) / 20, 1), min((cy + 5) / 16, 1)]
                for cx, cy in centres]
    np.testing.assert_allclose(boxes, expected, atol=1e-6)
    np.testing.assert_array_equal(out[1], np.full(16, 0.5, np.float32))


def test_prior_box_default_variance_and_shape_inference():
    out = _priors({"min_size": [4.0]}, [1, 1], [8, 8])
    np.testing.assert_allclose(out[1], [0.1] * 4)
    attrs = {**PriorBox.defaults, **SSD_PRIORS}
    assert PriorBox.infer_shapes(attrs, [(2,), (2,)], [None, None]) == [(2, DYN)]
    assert PriorBox.infer_shapes(attrs, [(2,), (2,)], [np.array([3, 5]), None]) == [(2, 4 * 15 * 4)]
    assert PriorBox.infer_types(attrs, [np.dtype(np.int64)] * 2) == [np.dtype(np.float32)]


PRIOR_CASES = [
    SSD_PRIORS,
    {"min_size": [4.0, 7.0], "max_size": [9.0, 12.0], "aspect_ratio": [2.0, 3.0, 0.5], "flip": True,
     "clip": True, "step": 0.0, "offset": 0.5, "variance": [0.1]},
    {"min_size": [4.0], "max_size": [6.0], "aspect_ratio": [2.0], "flip": False, "clip": True,
     "step": 5.0, "offset": 0.3, "variance": [], "min_max_aspect_ratios_order": False},
    {"min_size": [0.2, 0.3], "aspect_ratio": [2.0], "flip": True, "scale_all_sizes": False,
     "step": 0.0, "offset": 0.5, "variance": [0.1, 0.1, 0.2, 0.2]},
    {"fixed_size": [8.0], "density": [2.0], "aspect_ratio": [2.0], "step": 8.0, "offset": 0.5,
     "variance": [0.1]},
    {"fixed_size": [8.0, 16.0], "density": [2.0, 1.0], "fixed_ratio": [1.0, 2.0], "step": 8.0,
     "offset": 0.5, "variance": [0.1]},
]


def _openvino_prior_box(attrs: dict, hw, image) -> np.ndarray:
    ov = pytest.importorskip("openvino")
    import openvino.opset8 as ops

    dummy = ops.parameter([1], np.float32)
    boxes = ops.prior_box(ops.constant(np.array(hw, np.int64)),
                          ops.constant(np.array(image, np.int64)),
                          {k: v for k, v in attrs.items()})
    model = ov.Model([ops.add(boxes, ops.multiply(dummy, ops.constant(np.float32(0))))], [dummy])
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled({0: np.zeros(1, np.float32)})[0]


@pytest.mark.parametrize("attrs", PRIOR_CASES)
@pytest.mark.parametrize(("hw", "image"), [((2, 2), (16, 16)), ((3, 5), (30, 41))])
def test_prior_box_matches_openvino(attrs, hw, image):
    attrs = {"flip": False, "clip": False, "offset": 0.0, **attrs}
    ours = _priors(attrs, hw, image)
    ref = _openvino_prior_box(attrs, hw, image)
    assert ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-6)


# -- DetectionOutput ------------------------------------------------------------------------------
def _do_attrs(**kw) -> dict:
    return {**DetectionOutput.defaults, "normalized": True, **kw}


def test_detection_output_by_hand():
    """Three priors, two classes plus background, CORNER code with variance 1 (box = prior + loc):
    priors 0 and 1 overlap (IoU 0.16 / 0.24 = 2/3), prior 2 lies apart."""
    priors = np.array([[0.1, 0.1, 0.5, 0.5], [0.1, 0.1, 0.5, 0.7], [0.6, 0.6, 0.9, 0.9]],
                      np.float32)
    proposals = np.stack([priors.ravel(), np.ones(12, np.float32)])[None]  # [1, 2, 12]
    loc = np.zeros((1, 12), np.float32)
    loc[0, 8:] = [0.0, 0.0, 0.05, 0.05]  # prior 2 grows a little
    conf = np.array([[0.1, 0.8, 0.1,  # prior 0: class 1
                      0.2, 0.7, 0.1,  # prior 1: class 1, overlaps prior 0
                      0.3, 0.3, 0.4]], np.float32)  # prior 2: both classes
    attrs = _do_attrs(keep_top_k=[4], nms_threshold=0.5, confidence_threshold=0.25)
    out = DetectionOutput.compute(attrs, [loc, conf, proposals])[0]
    assert out.shape == (1, 1, 4, 7)
    rows = out.reshape(4, 7)
    np.testing.assert_allclose(rows[0], [0, 1, 0.8, 0.1, 0.1, 0.5, 0.5], atol=1e-6)
    np.testing.assert_allclose(rows[1], [0, 1, 0.3, 0.6, 0.6, 0.95, 0.95], atol=1e-6)
    np.testing.assert_allclose(rows[2], [0, 2, 0.4, 0.6, 0.6, 0.95, 0.95], atol=1e-6)
    np.testing.assert_array_equal(rows[3], [-1, 0, 0, 0, 0, 0, 0])  # the end marker
    # keep_top_k 2: the best two over the image (0.8 of class 1, 0.4 of class 2), by class
    attrs = _do_attrs(keep_top_k=[2], nms_threshold=0.5, confidence_threshold=0.25)
    out = DetectionOutput.compute(attrs, [loc, conf, proposals])[0].reshape(2, 7)
    np.testing.assert_allclose(out[:, :3], [[0, 1, 0.8], [0, 2, 0.4]], atol=1e-6)
    # a looser NMS keeps prior 1 as well
    attrs = _do_attrs(keep_top_k=[-1], nms_threshold=0.7, confidence_threshold=0.25)
    out = DetectionOutput.compute(attrs, [loc, conf, proposals])[0]
    assert out.shape == (1, 1, 3 * 3, 7)
    np.testing.assert_allclose(out[0, 0, :5, :3],
                               [[0, 1, 0.8], [0, 1, 0.7], [0, 1, 0.3], [0, 2, 0.4], [-1, 0, 0]],
                               atol=1e-6)


def test_detection_output_shape_inference():
    attrs = _do_attrs(keep_top_k=[10])
    shapes = [(2, 36 * 4), (2, 36 * 3), (1, 2, 36 * 4)]
    assert DetectionOutput.infer_shapes(attrs, shapes, [None] * 3) == [(1, 1, 20, 7)]
    attrs = _do_attrs(keep_top_k=[-1], top_k=5)
    assert DetectionOutput.infer_shapes(attrs, shapes, [None] * 3) == [(1, 1, 2 * 5 * 3, 7)]
    attrs = _do_attrs(keep_top_k=[-1], normalized=False)
    shapes = [(2, 36 * 4), (2, 36 * 3), (1, 2, 36 * 5)]
    assert DetectionOutput.infer_shapes(attrs, shapes, [None] * 3) == [(1, 1, 2 * 36 * 3, 7)]
    shapes = [(DYN, 8), (DYN, 6), (1, 2, 10)]
    assert DetectionOutput.infer_shapes(attrs, shapes, [None] * 3) == [(1, 1, DYN, 7)]


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _detection_inputs(attrs: dict, seed: int, images: int = 2, classes: int = 4, arm: bool = False,
                      per_image: bool = False) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    pb = _priors({**SSD_PRIORS, "min_size": [6.0], "max_size": [12.0]}, [3, 3], [24, 24])
    count = pb.shape[1] // 4
    loc_classes = 1 if attrs.get("share_location", True) else classes
    loc = (rng.standard_normal((images, count * loc_classes * 4)) * 0.5).astype(np.float32)
    scores = _softmax(rng.standard_normal((images, count, classes)) * 2)
    conf = scores.reshape(images, -1).astype(np.float32)
    if attrs.get("normalized", True):
        proposals = pb[None, :1] if attrs.get("variance_encoded_in_target") else pb[None]
        if per_image:
            proposals = np.concatenate([proposals] * images)
    else:  # [batch index, box in pixels]; an index of -1 ends the list early
        boxes = np.concatenate([np.zeros((count, 1), np.float32), pb[0].reshape(count, 4) * 24], 1)
        boxes[-3:, 0] = -1
        variances = np.concatenate([pb[1], np.zeros(count, np.float32)])
        proposals = np.stack([boxes.ravel(), variances])[None]
    inputs = [loc, conf, proposals.astype(np.float32)]
    if arm:
        arm_conf = _softmax(rng.standard_normal((images, count, 2)))
        inputs.append(arm_conf.reshape(images, -1).astype(np.float32))
        arm_loc = rng.standard_normal((images, count * loc_classes * 4)) * 0.3
        inputs.append(arm_loc.astype(np.float32))
    return inputs


def _openvino_detection_output(attrs: dict, inputs: list[np.ndarray]) -> np.ndarray:
    ov = pytest.importorskip("openvino")
    import openvino.opset8 as ops

    params = [ops.parameter(x.shape, np.float32) for x in inputs]
    node = ops.detection_output(*params[:3], attrs, *params[3:])
    compiled = ov.Core().compile_model(ov.Model([node], params), "CPU",
                                       {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled(inputs)[0]


BASE = {**DetectionOutput.defaults, "keep_top_k": [10], "nms_threshold": 0.45,
        "confidence_threshold": 0.01, "top_k": 20,
        "code_type": "caffe.PriorBoxParameter.CENTER_SIZE", "normalized": True}
VARIANTS = [
    {}, {"keep_top_k": [-1]}, {"keep_top_k": [-1], "top_k": -1}, {"keep_top_k": [3]},
    {"top_k": 2, "keep_top_k": [-1]}, {"code_type": "caffe.PriorBoxParameter.CORNER"},
    {"share_location": False}, {"share_location": False, "background_label_id": -1},
    {"background_label_id": 2}, {"clip_before_nms": True}, {"clip_after_nms": True},
    {"variance_encoded_in_target": True}, {"decrease_label_id": True},
    {"decrease_label_id": True, "share_location": False, "keep_top_k": [5]},
    {"normalized": False, "input_height": 24, "input_width": 24},
    {"confidence_threshold": 0.3, "nms_threshold": 0.2},
]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("variant", VARIANTS,
                         ids=lambda v: ",".join(f"{k}={v[k]}" for k in v) or "base")
def test_detection_output_matches_openvino(variant, seed):
    attrs = {**BASE, **variant}
    inputs = _detection_inputs(attrs, seed)
    ours = DetectionOutput.compute(attrs, inputs)[0]
    ref = _openvino_detection_output(attrs, inputs)
    assert ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-5)


@pytest.mark.parametrize(("variant", "kw"), [
    ({}, {"per_image": True}),
    ({"objectness_score": 0.4}, {"arm": True}),
    ({"objectness_score": 0.4, "share_location": False}, {"arm": True}),
    ({"objectness_score": 0.4, "decrease_label_id": True}, {"arm": True}),
])
def test_detection_output_priors_per_image_and_arm_inputs_match_openvino(variant, kw):
    attrs = {**BASE, **variant}
    inputs = _detection_inputs(attrs, 3, **kw)
    ours = DetectionOutput.compute(attrs, inputs)[0]
    np.testing.assert_allclose(ours, _openvino_detection_output(attrs, inputs), rtol=0, atol=1e-5)
