"""The ExperimentalDetectron* ops of opset6 (Detectron's Mask R-CNN head, as ONNX exports of it
and MO's Mask R-CNN conversions build them). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/experimental-detectron-detection-output-6.html
and its siblings.

- DetectionOutput: rois [N, 4], deltas [N, 4 * classes], scores [N, classes], im_info [1, 3]
  -> boxes [max_detections_per_image, 4], classes (i32) and scores [max_detections_per_image].
- GenerateProposalsSingleImage: im_info [3], anchors [H * W * A, 4], deltas [4 * A, H, W],
  scores [A, H, W] -> rois [post_nms_count, 4], scores [post_nms_count].
- PriorGridGenerator: priors [A, 4], feature map [1, C, H, W], image [1, 3, IH, IW] -> each
  prior shifted to the centre of every cell: [H * W * A, 4] (`flatten`) or [H, W, A, 4].
- ROIFeatureExtractor: rois [N, 4] and one feature map [1, C, Hi, Wi] per pyramid level ->
  [N, C, output_size, output_size] and the rois [N, 4].
- TopKROIs: rois [N, 4], probs [N] -> the max_rois rois of highest probability [max_rois, 4].

Shapes as OpenVINO infers them; only the grid generator and TopKROIs evaluate here (the shim
runs no model holding the other three; OpenVINO does).
"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = [
    "ExperimentalDetectronDetectionOutput", "ExperimentalDetectronGenerateProposalsSingleImage",
    "ExperimentalDetectronPriorGridGenerator", "ExperimentalDetectronROIFeatureExtractor",
    "ExperimentalDetectronTopKROIs",
]


def _dim(shape: tuple | None, axis: int) -> int:
    return DYN if shape is None else shape[axis]


class ExperimentalDetectronDetectionOutput(Op):
    op = type = "ExperimentalDetectronDetectionOutput"
    version = "opset6"
    in_ports_count = 4
    out_ports_count = 3
    attr_types = {"score_threshold": "float", "nms_threshold": "float",
                  "max_delta_log_wh": "float", "num_classes": "int", "post_nms_count": "int",
                  "max_detections_per_image": "int", "class_agnostic_box_regression": "bool",
                  "deltas_weights": "floats"}
    defaults = {"class_agnostic_box_regression": False}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        rois = attrs["max_detections_per_image"]
        return [(rois, 4), (rois,), (rois,)]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0], np.dtype(np.int32), types[0]]


class ExperimentalDetectronGenerateProposalsSingleImage(Op):
    op = type = "ExperimentalDetectronGenerateProposalsSingleImage"
    version = "opset6"
    in_ports_count = 4
    out_ports_count = 2
    attr_types = {"min_size": "float", "nms_threshold": "float", "pre_nms_count": "int",
                  "post_nms_count": "int"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [(attrs["post_nms_count"], 4), (attrs["post_nms_count"],)]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0], types[0]]


class ExperimentalDetectronPriorGridGenerator(Op):
    op = type = "ExperimentalDetectronPriorGridGenerator"
    version = "opset6"
    in_ports_count = 3
    attr_types = {"flatten": "bool", "h": "int", "w": "int", "stride_x": "float",
                  "stride_y": "float"}
    defaults = {"flatten": True, "h": 0, "w": 0, "stride_x": 0.0, "stride_y": 0.0}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        priors, height, width = _dim(shapes[0], 0), _dim(shapes[1], 2), _dim(shapes[1], 3)
        if not attrs["flatten"]:
            return [(height, width, priors, 4)]
        known = DYN not in (priors, height, width)
        return [(height * width * priors if known else DYN, 4)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        priors = np.asarray(inputs[0])
        height = attrs["h"] or inputs[1].shape[2]
        width = attrs["w"] or inputs[1].shape[3]
        step_w = attrs["stride_x"] or inputs[2].shape[3] / width
        step_h = attrs["stride_y"] or inputs[2].shape[2] / height
        ys, xs = np.meshgrid((np.arange(height) + 0.5) * step_h, (np.arange(width) + 0.5) * step_w,
                             indexing="ij")
        shift = np.stack([xs, ys, xs, ys], -1)[:, :, None].astype(priors.dtype)  # [H, W, 1, 4]
        out = priors[None, None] + shift
        return [out.reshape(-1, 4) if attrs["flatten"] else out]


class ExperimentalDetectronROIFeatureExtractor(Op):
    op = type = "ExperimentalDetectronROIFeatureExtractor"
    version = "opset6"
    in_ports_count = None  # the rois, then one feature map per pyramid level
    out_ports_count = 2
    attr_types = {"output_size": "int", "sampling_ratio": "int", "pyramid_scales": "ints",
                  "aligned": "bool"}
    defaults = {"aligned": False}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        rois, size = _dim(shapes[0], 0), attrs["output_size"]
        return [(rois, _dim(shapes[1], 1), size, size), (rois, 4)]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0], types[0]]


class ExperimentalDetectronTopKROIs(Op):
    op = type = "ExperimentalDetectronTopKROIs"
    version = "opset6"
    in_ports_count = 2
    attr_types = {"max_rois": "int"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [(attrs["max_rois"], 4)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        rois, probs = np.asarray(inputs[0]), np.ravel(inputs[1])
        order = np.argsort(-probs, kind="stable")[:attrs["max_rois"]]
        out = np.zeros((attrs["max_rois"], 4), rois.dtype)
        out[:len(order)] = rois[order]
        return [out]
