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
        n_img = inputs[1].shape[0]
        conf_all = np.asarray(inputs[1], F32).reshape(n_img, -1)
        priors_in = np.asarray(inputs[2], F32)
        size = 4 if attrs["normalized"] else 5
        coord = 0 if attrs["normalized"] else 1
        P = priors_in.shape[-1] // size
        C = conf_all.shape[1] // P
        share = bool(attrs["share_location"])
        L = 1 if share else C
        loc_all = np.asarray(inputs[0], F32).reshape(n_img, P, L, 4)
        conf_all = conf_all.reshape(n_img, P, C)
        arm_conf = np.asarray(inputs[3], F32).reshape(n_img, P, 2) if len(inputs) > 3 else None
        arm_loc = np.asarray(inputs[4], F32).reshape(n_img, P, L, 4) if len(inputs) > 4 else None
        per_image = priors_in.shape[0] != 1
        encoded = bool(attrs["variance_encoded_in_target"])
        flat = priors_in.reshape(-1)
        bg = int(attrs["background_label_id"])
        mx = bool(attrs["decrease_label_id"])
        thr, top_k = F32(attrs["confidence_threshold"]), int(attrs["top_k"])
        keep_top_k = int(list(attrs.get("keep_top_k") or [-1])[0])
        rows_out = _num_rows(attrs, n_img, P, C)
        out = np.zeros((rows_out, 7), F32)
        count = 0
        for n in range(n_img):
            base = (n * (1 if encoded else 2) * P * size) if per_image else 0
            prior = flat[base:base + P * size].reshape(P, size)
            var = None if encoded else flat[base + P * size:base + P * size + 4 * P].reshape(P, 4)
            actual = P
            if not attrs["normalized"]:
                ids = np.nonzero(prior[:, 0] == F32(-1))[0]
                actual = int(ids[0]) if ids.size else P
            prior = prior[:, coord:coord + 4]
            conf = conf_all[n].T.copy()  # [C, P]
            if arm_conf is not None:
                weak = arm_conf[n, :, 1] < F32(attrs["objectness_score"])
                conf[:, weak] = 0
                if 0 <= bg < C:
                    conf[bg, weak] = 1
            loc = np.moveaxis(loc_all[n], 1, 0)  # [L, P, 4]
            if arm_loc is not None:
                refined = _decode(attrs, prior, np.moveaxis(arm_loc[n], 1, 0), var)
                boxes = np.stack([_decode(attrs, refined[c], loc[c], var) for c in range(L)])
            else:
                boxes = _decode(attrs, prior, loc, var)
            sizes = (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
            kept: dict[int, list[int]] = {}
            if not mx:
                for c in range(C):
                    if c == bg:
                        continue
                    scores = conf[c, :actual]
                    idx = np.nonzero(scores > thr)[0]
                    order = idx[_best_first(scores[idx], idx, top_k)]
                    b = 0 if share else c
                    kept[c] = _nms(order.tolist(), boxes[b], sizes[b], attrs["nms_threshold"])
            else:
                # each prior's best class (not the background 0) at or above the threshold
                cand = np.vstack([np.full((1, actual), F32(-1)), conf[1:, :actual]])
                masked = np.where(cand >= thr, cand, F32(-1))
                masked[0] = F32(-1)
                best = np.argmax(masked, axis=0)  # the first of equal maxima, as the plugin
                pr = np.nonzero(masked.max(axis=0) > F32(-1))[0]
                cls_ = best[pr]
                order = _best_first(conf[cls_, pr], cls_ * P + pr, top_k)
                kept = {c: [] for c in range(C)}
                for j in order:
                    c, p = int(cls_[j]), int(pr[j])
                    b = 0 if share else c
                    mine = kept[c]
                    if mine and np.any(_iou(boxes[b, p], sizes[b, p], boxes[b, mine],
                                            sizes[b, mine]) > F32(attrs["nms_threshold"])):
                        continue
                    mine.append(p)
            total = sum(len(v) for v in kept.values())
            if keep_top_k > -1 and total > keep_top_k:
                flat_c = np.array([c for c, v in kept.items() for _ in v], np.int64)
                flat_p = np.array([p for v in kept.values() for p in v], np.int64)
                scores = conf[flat_c, flat_p]
                chosen = np.lexsort((flat_c, flat_p, -scores))[:keep_top_k]
                kept = {c: [] for c in kept}
                for j in chosen:
                    kept[int(flat_c[j])].append(int(flat_p[j]))
            for c in sorted(kept):
                b = 0 if share else c
                for p in kept[c]:
                    if count >= rows_out:
                        break
                    box = boxes[b, p]
                    if attrs["clip_after_nms"]:
                        box = np.clip(box, F32(0), F32(1))
                    out[count] = [n, c - 1 if mx else c, conf[c, p], *box]
                    count += 1
        if count < rows_out:
            out[count, 0] = -1
        return [out.reshape(1, 1, rows_out, 7)]
