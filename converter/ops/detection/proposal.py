"""Proposal-4: Faster R-CNN's region proposals from RPN scores and box deltas over anchors, after
NMS. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/proposal-4.html

Inputs: class_probs [N, 2 * K, H, W] (the last K channels score the anchors), bbox_deltas
[N, 4 * K, H, W], image_shape [3] or [4] (height, width, scale, or scale_h and scale_w).
Outputs: rois [N * post_nms_topn, 5] (batch index, x0, y0, x1, y1) and their scores
[N * post_nms_topn]; when fewer boxes survive, the rest are 0 and the first unused row starts
with -1. K = len(ratio) * len(scale) anchors per cell, in ratio-major order. Boxes are in pixels
with inclusive ends (width x1 - x0 + 1), except with framework 'tensorflow'.
"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["Proposal"]

F32 = np.float32


def _anchors(attrs: dict, tf: bool) -> np.ndarray:
    """[K, 4] anchors (x0, y0, x1, y1) around the first cell."""
    off, base = F32(0 if tf else 1), F32(attrs["base_size"])
    ratios, scales = np.asarray(attrs["ratio"], F32), np.asarray(attrs["scale"], F32)
    width = np.sqrt(base * base / ratios)
    height = width * ratios
    if not tf:  # rounded half away from zero, as roundf
        width = np.floor(width + F32(0.5))
        height = np.floor(width * ratios + F32(0.5))
    half_w = F32(0.5) * (width[:, None] * scales[None] - off)
    half_h = F32(0.5) * (height[:, None] * scales[None] - off)
    centre = F32(0.5) * (base - off) - (base * F32(0.5) if tf else F32(0))
    boxes = np.stack([centre - half_w, centre - half_h, centre + half_w, centre + half_h], -1)
    return boxes.reshape(-1, 4).astype(F32)


def _decode(attrs: dict, scores: np.ndarray, deltas: np.ndarray, image: np.ndarray) -> tuple:
    """Boxes [H * W * K, 4] and scores (0 below min_size) of one image."""
    tf = attrs["framework"] == "tensorflow"
    off = F32(0 if tf else 1)
    k, h, w = scores.shape
    img_h, img_w, scale_h = (F32(v) for v in image[:3])
    scale_w = F32(image[3]) if len(image) > 3 else scale_h
    ys, xs = np.meshgrid(np.arange(h, dtype=F32), np.arange(w, dtype=F32), indexing="ij")
    if tf:  # OpenVINO reads TensorFlow's boxes as (y, x): the cells and the image turned
        xs, ys = ys, xs
        img_h, img_w = img_w, img_h
    stride = F32(attrs["feat_stride"])
    shift = np.stack([xs, ys, xs, ys], -1)[:, :, None] * stride  # [H, W, 1, 4]
    box = (_anchors(attrs, tf)[None, None] + shift).reshape(-1, 4)
    if tf:
        box = np.clip(box, 0, [img_w, img_h, img_w, img_h])
    d = deltas.reshape(k, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4)
    dxy = d[:, :2] / F32(attrs["box_coordinate_scale"])
    dwh = d[:, 2:] / F32(attrs["box_size_scale"])
    size = box[:, 2:] - box[:, :2] + off
    centre = box[:, :2] + F32(0.5) * size
    centre, size = dxy * size + centre, np.exp(dwh) * size
    box = np.concatenate([centre - F32(0.5) * size, centre + F32(0.5) * size], 1)
    if attrs["clip_before_nms"]:
        box = np.clip(box, 0, [img_w - off, img_h - off, img_w - off, img_h - off])
    size = box[:, 2:] - box[:, :2] + off
    min_size = F32(attrs["min_size"])
    big = (size[:, 0] >= min_size * scale_w) & (size[:, 1] >= min_size * scale_h)
    return box.astype(F32), scores.transpose(1, 2, 0).reshape(-1) * big


def _nms(attrs: dict, box: np.ndarray, off: F32) -> list[int]:
    """Greedy NMS over boxes sorted by score; kept indices, at most post_nms_topn."""
    area = (box[:, 2] - box[:, 0] + off) * (box[:, 3] - box[:, 1] + off)
    alive, kept = np.ones(len(box), bool), []
    for i in range(len(box)):
        if not alive[i]:
            continue
        kept.append(i)
        if len(kept) == attrs["post_nms_topn"]:
            break
        rest = box[i + 1:]
        lo, hi = np.maximum(box[i, :2], rest[:, :2]), np.minimum(box[i, 2:], rest[:, 2:])
        touch = np.all(box[i, :2] <= rest[:, 2:], 1) & np.all(rest[:, :2] <= box[i, 2:], 1)
        inter = np.prod(np.maximum(hi - lo + off, 0), 1)
        iou = np.where(touch, inter / (area[i] + area[i + 1:] - inter), 0)
        alive[i + 1:] &= ~(iou > F32(attrs["nms_thresh"]))
    return kept


class Proposal(Op):
    op = type = "Proposal"
    version = "opset4"
    in_ports_count = 3
    out_ports_count = 2
    attr_types = {
        "base_size": "int", "pre_nms_topn": "int", "post_nms_topn": "int", "nms_thresh": "float",
        "feat_stride": "int", "min_size": "int", "ratio": "floats", "scale": "floats",
        "clip_before_nms": "bool", "clip_after_nms": "bool", "normalize": "bool",
        "box_size_scale": "float", "box_coordinate_scale": "float", "framework": "str",
    }
    defaults = {"clip_before_nms": True, "clip_after_nms": False, "normalize": False,
                "box_size_scale": 1.0, "box_coordinate_scale": 1.0, "framework": ""}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        batch = DYN if shapes[0] is None or shapes[0][0] == DYN else shapes[0][0]
        rows = DYN if batch == DYN else batch * attrs["post_nms_topn"]
        return [(rows, 5), (rows,)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        probs, deltas = np.asarray(inputs[0], F32), np.asarray(inputs[1], F32)
        image = np.ravel(inputs[2]).astype(F32)
        post, off = attrs["post_nms_topn"], F32(0 if attrs["framework"] == "tensorflow" else 1)
        rois = np.zeros((len(probs), post, 5), F32)
        scores = np.zeros((len(probs), post), F32)
        for b in range(len(probs)):
            box, score = _decode(attrs, probs[b, probs.shape[1] // 2:], deltas[b], image)
            order = np.argsort(-score, kind="stable")[:attrs["pre_nms_topn"]]
            kept = order[_nms(attrs, box[order], off)]
            out = box[kept]
            hw = image[:2][::-1] if off == 0 else image[:2]
            if attrs["clip_after_nms"]:
                out = np.clip(out, 0, [hw[1], hw[0], hw[1], hw[0]])
            if attrs["normalize"]:
                out = out / np.array([hw[1], hw[0], hw[1], hw[0]], F32)
            rois[b, :len(kept)] = np.concatenate([np.full((len(kept), 1), b, F32), out], 1)
            scores[b, :len(kept)] = score[kept]
            if len(kept) < post:
                rois[b, len(kept), 0] = -1
        return [rois.reshape(-1, 5), scores.reshape(-1)]
