"""DetectionOutput-8: decode SSD box predictions against prior boxes, keep the confident ones,
per-class greedy NMS, keep_top_k over the image. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/detectionoutput-8.html

Inputs: box_logits [N, P * L * 4] (L = 1 with share_location, else the class count),
class_preds [N, P * C], proposals [1 or N, 1 or 2, P * 4] (P * 5 with `normalized` false:
a batch index before each box), and optionally (RefineDet) ARM confidences [N, P * 2] and
ARM box logits [N, P * L * 4].
Output [1, 1, R, 7]: rows [image, label, confidence, xmin, ymin, xmax, ymax] by image, by
class, best first; after the last row one whose image is -1; the rest zeros.

The numbers follow OpenVINO's CPU plugin (float32, same order of operations): candidates are
confidences above the threshold (Caffe style) or, with decrease_label_id, the best class of
each prior at or above it (MXNet style); ties are broken by the lower index; a box is
suppressed when its IoU with a kept one is above nms_threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["DetectionOutput"]

F32 = np.float32


def _num_rows(attrs: dict, images: int, priors: int, classes: int) -> int:
    keep = list(attrs.get("keep_top_k") or [-1])[0]
    if keep > 0:
        return images * keep
    if attrs["top_k"] > 0:
        return images * attrs["top_k"] * classes
    return images * priors * classes


def _decode(attrs: dict, prior: np.ndarray, loc: np.ndarray, var: np.ndarray | None) -> np.ndarray:
    """Boxes [..., 4] from priors [P, 4] (already normalised or not), offsets [..., P, 4]."""
    if not attrs["normalized"]:
        scale = np.array([attrs["input_width"], attrs["input_height"]] * 2, F32)
        prior = prior / scale
    code = str(attrs["code_type"]).rsplit(".", 1)[-1].upper()
    if var is None or attrs["variance_encoded_in_target"]:
        var = np.ones(4, F32)
    x0, y0, x1, y1 = (prior[:, i] for i in range(4))
    lx0, ly0, lx1, ly1 = (loc[..., i] for i in range(4))
    v0, v1, v2, v3 = (var[..., i] for i in range(4))
    if code == "CENTER_SIZE":
        pw, ph = x1 - x0, y1 - y0
        pcx, pcy = (x0 + x1) / F32(2), (y0 + y1) / F32(2)
        cx = v0 * lx0 * pw + pcx
        cy = v1 * ly0 * ph + pcy
        w = np.exp(v2 * lx1) * pw
        h = np.exp(v3 * ly1) * ph
        box = [cx - w / F32(2), cy - h / F32(2), cx + w / F32(2), cy + h / F32(2)]
    elif code == "CORNER_SIZE":
        pw, ph = x1 - x0, y1 - y0
        box = [x0 + v0 * lx0 * pw, y0 + v1 * ly0 * ph, x1 + v2 * lx1 * pw, y1 + v3 * ly1 * ph]
    else:  # CORNER
        box = [x0 + v0 * lx0, y0 + v1 * ly0, x1 + v2 * lx1, y1 + v3 * ly1]
    out = np.stack(box, axis=-1).astype(F32)
    if attrs["clip_before_nms"]:
        out = np.clip(out, F32(0), F32(1))
    return out


def _iou(box: np.ndarray, size: F32, kept: np.ndarray, kept_sizes: np.ndarray) -> np.ndarray:
    """IoU of one box with kept boxes [K, 4], as the plugin's JaccardOverlap (float32)."""
    apart = ((kept[:, 0] > box[2]) | (kept[:, 2] < box[0])
             | (kept[:, 1] > box[3]) | (kept[:, 3] < box[1]))
    iw = np.minimum(box[2], kept[:, 2]) - np.maximum(box[0], kept[:, 0])
    ih = np.minimum(box[3], kept[:, 3]) - np.maximum(box[1], kept[:, 1])
    inter = iw * ih
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (size + kept_sizes - inter)
    return np.where(apart | (iw <= 0) | (ih <= 0), F32(0), iou)


def _best_first(scores: np.ndarray, index: np.ndarray, k: int) -> np.ndarray:
    """Positions into index of the k best scores, ties by the lower index."""
    order = np.lexsort((index, -scores))
    return order[:k] if k >= 0 else order


def _nms(order: list[int], boxes: np.ndarray, sizes: np.ndarray, threshold: float) -> list[int]:
    kept: list[int] = []
    for i in order:
        if kept and np.any(_iou(boxes[i], sizes[i], boxes[kept], sizes[kept]) > F32(threshold)):
            continue
        kept.append(i)
    return kept


class DetectionOutput(Op):
    op = type = "DetectionOutput"
    version = "opset8"
    in_ports_count = 5
    attr_types = {
        "background_label_id": "int", "top_k": "int", "variance_encoded_in_target": "bool",
        "keep_top_k": "ints", "code_type": "str", "share_location": "bool",
        "nms_threshold": "float", "confidence_threshold": "float", "clip_after_nms": "bool",
        "clip_before_nms": "bool", "decrease_label_id": "bool", "normalized": "bool",
        "input_height": "int", "input_width": "int", "objectness_score": "float",
    }
    defaults = {
        "background_label_id": 0, "top_k": -1, "variance_encoded_in_target": False,
        "keep_top_k": [-1], "code_type": "caffe.PriorBoxParameter.CORNER", "share_location": True,
        "nms_threshold": 0.3, "confidence_threshold": 0.0, "clip_after_nms": False,
        "clip_before_nms": False, "decrease_label_id": False, "normalized": False,
        "input_height": 1, "input_width": 1, "objectness_score": 0.0,
    }

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        loc, conf, priors = shapes[:3]
        size = 4 if attrs["normalized"] else 5
        if loc is None or conf is None or priors is None or min(loc[0], priors[-1], conf[-1]) < 0:
            return [(1, 1, DYN, 7)]
        num_priors = priors[-1] // size
        classes = int(np.prod(conf[1:])) // num_priors if num_priors else 0
        return [(1, 1, _num_rows(attrs, loc[0], num_priors, classes), 7)]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        attrs = {**cls.defaults, **attrs}
        batch = _Batch.read(attrs, inputs)
        rows = _num_rows(attrs, batch.images, batch.P, batch.C)
        out = np.zeros((rows, 7), F32)
        count = 0
        for n in range(batch.images):
            conf, boxes, sizes, actual = batch.image(attrs, n)
            pick = _kept_best_class if attrs["decrease_label_id"] else _kept_per_class
            kept = pick(attrs, conf, boxes, sizes, actual, batch.share)
            kept = _keep_top(kept, conf, int(list(attrs.get("keep_top_k") or [-1])[0]))
            for c in sorted(kept):
                box_set = 0 if batch.share else c
                for p in kept[c][:rows - count]:
                    box = boxes[box_set, p]
                    if attrs["clip_after_nms"]:
                        box = np.clip(box, F32(0), F32(1))
                    label = c - 1 if attrs["decrease_label_id"] else c
                    out[count] = [n, label, conf[c, p], *box]
                    count += 1
        if count < rows:
            out[count, 0] = -1
        return [out.reshape(1, 1, rows, 7)]


@dataclass
class _Batch:
    """The inputs reshaped: P priors, C classes, L box sets (1 when shared by the classes)."""

    P: int
    C: int
    L: int
    share: bool
    loc: np.ndarray  # [N, P, L, 4]
    conf: np.ndarray  # [N, P, C]
    priors: np.ndarray  # flat
    per_image: bool
    arm_conf: np.ndarray | None
    arm_loc: np.ndarray | None

    @property
    def images(self) -> int:
        return self.conf.shape[0]

    @classmethod
    def read(cls, attrs: dict, inputs: list[np.ndarray]) -> _Batch:
        n_img = inputs[1].shape[0]
        conf = np.asarray(inputs[1], F32).reshape(n_img, -1)
        priors = np.asarray(inputs[2], F32)
        P = priors.shape[-1] // (4 if attrs["normalized"] else 5)
        C = conf.shape[1] // P
        L = 1 if attrs["share_location"] else C
        arm_conf = np.asarray(inputs[3], F32).reshape(n_img, P, 2) if len(inputs) > 3 else None
        arm_loc = np.asarray(inputs[4], F32).reshape(n_img, P, L, 4) if len(inputs) > 4 else None
        return cls(P, C, L, bool(attrs["share_location"]),
                   np.asarray(inputs[0], F32).reshape(n_img, P, L, 4), conf.reshape(n_img, P, C),
                   priors.reshape(-1), priors.shape[0] != 1, arm_conf, arm_loc)

    def image(self, attrs: dict, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """Image n's confidences [C, P], boxes and their areas [L, P, (4)], and how many priors
        are real (unnormalised priors end at one whose first value is -1)."""
        size = 4 if attrs["normalized"] else 5
        encoded = bool(attrs["variance_encoded_in_target"])
        P = self.P
        base = (n * (1 if encoded else 2) * P * size) if self.per_image else 0
        prior = self.priors[base:base + P * size].reshape(P, size)
        end = base + P * size
        var = None if encoded else self.priors[end:end + 4 * P].reshape(P, 4)
        actual = P
        if not attrs["normalized"]:
            ids = np.nonzero(prior[:, 0] == F32(-1))[0]
            actual = int(ids[0]) if ids.size else P
        prior = prior[:, size - 4:]
        conf = self.conf[n].T.copy()  # [C, P]
        if self.arm_conf is not None:
            weak = self.arm_conf[n, :, 1] < F32(attrs["objectness_score"])
            conf[:, weak] = 0
            if 0 <= attrs["background_label_id"] < self.C:
                conf[attrs["background_label_id"], weak] = 1
        loc = np.moveaxis(self.loc[n], 1, 0)  # [L, P, 4]
        if self.arm_loc is not None:
            refined = _decode(attrs, prior, np.moveaxis(self.arm_loc[n], 1, 0), var)
            boxes = np.stack([_decode(attrs, refined[c], loc[c], var) for c in range(self.L)])
        else:
            boxes = _decode(attrs, prior, loc, var)
        sizes = (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
        return conf, boxes, sizes, actual


def _kept_per_class(attrs: dict, conf: np.ndarray, boxes: np.ndarray, sizes: np.ndarray,
                    actual: int, share: bool) -> dict[int, list[int]]:
    """Caffe style: per class, the priors above the threshold, best first, then NMS."""
    kept = {}
    for c in range(conf.shape[0]):
        if c == attrs["background_label_id"]:
            continue
        scores = conf[c, :actual]
        idx = np.nonzero(scores > F32(attrs["confidence_threshold"]))[0]
        order = idx[_best_first(scores[idx], idx, int(attrs["top_k"]))]
        b = 0 if share else c
        kept[c] = _nms(order.tolist(), boxes[b], sizes[b], attrs["nms_threshold"])
    return kept


def _kept_best_class(attrs: dict, conf: np.ndarray, boxes: np.ndarray, sizes: np.ndarray,
                     actual: int, share: bool) -> dict[int, list[int]]:
    """MXNet style: each prior's best class (not the background 0) at or above the threshold,
    all priors best first, NMS within each class."""
    C, P = conf.shape[0], conf.shape[1]
    thr = F32(attrs["confidence_threshold"])
    cand = np.vstack([np.full((1, actual), F32(-1)), conf[1:, :actual]])
    masked = np.where(cand >= thr, cand, F32(-1))
    masked[0] = F32(-1)
    best = np.argmax(masked, axis=0)  # the first of equal maxima, as the plugin
    priors = np.nonzero(masked.max(axis=0) > F32(-1))[0]
    classes = best[priors]
    kept: dict[int, list[int]] = {c: [] for c in range(C)}
    for j in _best_first(conf[classes, priors], classes * P + priors, int(attrs["top_k"])):
        c, p = int(classes[j]), int(priors[j])
        b = 0 if share else c
        mine = kept[c]
        if mine and np.any(_iou(boxes[b, p], sizes[b, p], boxes[b, mine], sizes[b, mine])
                           > F32(attrs["nms_threshold"])):
            continue
        mine.append(p)
    return kept


def _keep_top(kept: dict[int, list[int]], conf: np.ndarray,
              keep_top_k: int) -> dict[int, list[int]]:
    """At most keep_top_k detections over all classes: the best scores (ties: lower prior)."""
    total = sum(len(v) for v in kept.values())
    if keep_top_k <= -1 or total <= keep_top_k:
        return kept
    flat_c = np.array([c for c, v in kept.items() for _ in v], np.int64)
    flat_p = np.array([p for v in kept.values() for p in v], np.int64)
    chosen = np.lexsort((flat_c, flat_p, -conf[flat_c, flat_p]))[:keep_top_k]
    out: dict[int, list[int]] = {c: [] for c in kept}
    for j in chosen:
        out[int(flat_c[j])].append(int(flat_p[j]))
    return out
