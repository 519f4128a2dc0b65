"""NonMaxSuppression-9: greedy (or soft) box selection per batch and class. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sort/nms-9.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op


def _corners(boxes: np.ndarray, encoding: str) -> np.ndarray:
    """Boxes as [ymin, xmin, ymax, xmax] (corner pairs in any order, or center format)."""
    b = boxes.astype(np.float64)
    if encoding == "center":
        xc, yc, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=-1)
    y = np.sort(b[..., 0::2], axis=-1)
    x = np.sort(b[..., 1::2], axis=-1)
    return np.stack([y[..., 0], x[..., 0], y[..., 1], x[..., 1]], axis=-1)


def _iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """IoU of one [4] box with [n, 4] boxes; 0 where there is no overlap or a box is empty."""
    lo = np.maximum(box[:2], boxes[:, :2])
    hi = np.minimum(box[2:], boxes[:, 2:])
    inter = np.prod(np.clip(hi - lo, 0, None), axis=1)
    area = np.prod(boxes[:, 2:] - boxes[:, :2], axis=1)
    union = np.prod(box[2:] - box[:2]) + area - inter
    ok = (inter > 0) & (union > 0)
    return np.where(ok, inter / np.where(ok, union, 1), 0.0)


def _select(boxes: np.ndarray, scores: np.ndarray, limit: int, iou_thr: float,
            score_thr: float, sigma: float) -> tuple[list[int], list[float]]:
    """Boxes picked for one class, best first, with their (possibly decayed) scores."""
    scores = scores.astype(np.float64)
    alive = scores > score_thr
    picked: list[int] = []
    picked_scores: list[float] = []
    scale = -0.5 / sigma if sigma > 0 else 0.0
    while len(picked) < limit and alive.any():
        best = int(np.argmax(np.where(alive, scores, -np.inf)))
        picked.append(best)
        picked_scores.append(float(scores[best]))
        alive[best] = False
        iou = _iou(boxes[best], boxes)
        alive &= iou <= iou_thr
        if scale:
            scores = scores * np.exp(scale * iou * iou)
            alive &= scores > score_thr
    return picked, picked_scores


class NonMaxSuppression(Op):
    op = type = "NonMaxSuppression"
    version = "opset9"
    in_ports_count = 6
    out_ports_count = 3
    attr_types = {"box_encoding": "str", "sort_result_descending": "bool", "output_type": "type"}
    defaults = {
        "box_encoding": "corner", "sort_result_descending": True,
        "output_type": np.dtype(np.int64),
    }

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [(DYN, 3), (DYN, 3), (1,)]

    @classmethod
    def infer_types(cls, attrs, types):
        index = np.dtype(attrs["output_type"])
        return [index, types[1], index]

    @classmethod
    def evaluate(cls, attrs, inputs):
        boxes = _corners(np.asarray(inputs[0]), attrs["box_encoding"])
        scores = np.asarray(inputs[1])
        extra = [float(np.asarray(v).reshape(-1)[0]) for v in inputs[2:]]
        limit, iou_thr, score_thr, sigma = (extra + [0.0] * 4)[:4]
        rows: list[tuple[int, int, int, float]] = []
        for b in range(scores.shape[0]):
            for c in range(scores.shape[1]):
                picked, kept = _select(boxes[b], scores[b, c], int(limit),
                                       iou_thr, score_thr, sigma)
                rows.extend((b, c, i, s) for i, s in zip(picked, kept))
        if attrs["sort_result_descending"]:
            rows.sort(key=lambda r: -r[3])
        table = np.array(rows, dtype=np.float64).reshape(-1, 4)
        indices = table[:, :3].astype(np.int64)
        selected = np.stack([table[:, 0], table[:, 1], table[:, 3]], axis=1).astype(scores.dtype)
        return [indices, selected, np.array([len(rows)], dtype=np.int64)]
