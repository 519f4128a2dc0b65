"""PriorBox-8: SSD anchor boxes for every cell of a feature map, normalised by the image size. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/prior-box-8.html

Inputs: output_size (the feature map's [H, W]) and image_size ([IH, IW]), both integer.
Output [2, 4 * H * W * num_priors] float32: row 0 the boxes (xmin, ymin, xmax, ymax per prior,
cells in row-major order, the priors of a cell together), row 1 their variances.

The numbers follow OpenVINO's reference (which its CPU plugin folds with), in float32 and in
the same order of operations: for each min_size the square box, then (with
min_max_aspect_ratios_order) the sqrt(min * max) box and the aspect-ratio boxes.
"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["PriorBox", "PriorBoxes", "number_of_priors"]

F32 = np.float32


def _aspect_ratios(attrs: dict) -> list[float]:
    """1, then each new ratio (and its inverse with flip), in order, duplicates (1e-6) dropped."""
    ratios = [1.0]
    for ar in attrs.get("aspect_ratio") or []:
        ar = float(F32(ar))
        if any(abs(ar - r) < 1e-6 for r in ratios):
            continue
        ratios.append(ar)
        if attrs.get("flip"):
            ratios.append(float(F32(1.0) / F32(ar)))
    return ratios


def number_of_priors(attrs: dict) -> int:
    """Priors per cell, as OpenVINO's PriorBox::number_of_priors counts them."""
    unique = {1.0}
    for ar in attrs.get("aspect_ratio") or []:
        unique.add(round(float(ar) * 1e6) / 1e6)
        if attrs.get("flip"):
            unique.add(round(1.0 / float(ar) * 1e6) / 1e6)
    total = len(unique)
    min_size, max_size = attrs.get("min_size") or [], attrs.get("max_size") or []
    if attrs.get("scale_all_sizes", True):
        count = total * len(min_size) + len(max_size)
    else:
        count = total + len(min_size) - 1
    fixed_size = attrs.get("fixed_size") or []
    if fixed_size:
        count = total * len(fixed_size)
    for density in attrs.get("density") or []:
        d = int(density)
        count += (len(attrs.get("fixed_ratio") or []) or total) * (d * d - 1)
    return count


def _cell_priors(attrs: dict, min_size: list[F32]) -> list[tuple[F32, F32, F32, F32, bool]]:
    """(dx, dy, half_width, half_height, clip_now) of each prior of a cell around its centre."""
    ratios = _aspect_ratios(attrs)
    out: list[tuple[F32, F32, F32, F32, bool]] = []
    zero, half = F32(0), F32(0.5)
    fixed_size = [F32(s) for s in attrs.get("fixed_size") or []]
    fixed_ratio = [F32(r) for r in attrs.get("fixed_ratio") or []]
    density = attrs.get("density") or []
    for s, size in enumerate(fixed_size):
        size_int = int(size)  # size_t in the reference
        d = int(density[s]) if s < len(density) else 1
        shift = int(size / F32(d)) if d else 0

        def grid(bw: F32, bh: F32) -> None:
            for r in range(d):
                for c in range(d):
                    dx = F32(-(size_int // 2)) + F32(shift / 2.0) + F32(c * shift)
                    dy = F32(-(size_int // 2)) + F32(shift / 2.0) + F32(r * shift)
                    out.append((dx, dy, bw, bh, True))

        if fixed_ratio:
            for ar in fixed_ratio:
                root = np.sqrt(ar, dtype=F32)
                grid(size * half * root, size * half / root)
        else:
            if density:
                grid(F32(size_int) * half, F32(size_int) * half)
            for ar in ratios:
                if abs(ar - 1.0) < 1e-6:
                    continue
                root = np.sqrt(F32(ar), dtype=F32)
                grid(size * half * root, size * half / root)
    max_size = [F32(m) for m in attrs.get("max_size") or []]
    scale_all = attrs.get("scale_all_sizes", True)
    for i, size in enumerate(min_size):
        out.append((zero, zero, size * half, size * half, False))
        big = []
        if i < len(max_size):
            side = np.sqrt(size * max_size[i], dtype=F32) * half
            big = [(zero, zero, side, side, False)]
        boxes = []
        if scale_all or i == len(min_size) - 1:
            base = min_size[i if scale_all else 0]
            for ar in ratios:
                if abs(ar - 1.0) < 1e-6:
                    continue
                root = np.sqrt(F32(ar), dtype=F32)
                boxes.append((zero, zero, base * half * root, base * half / root, False))
        out += big + boxes if attrs.get("min_max_aspect_ratios_order", True) else boxes + big
    return out


def prior_boxes(attrs: dict, h: int, w: int, ih: int, iw: int) -> np.ndarray:
    """The [2, 4 * h * w * num_priors] output for an h x w map of an ih x iw image."""
    step = F32(attrs.get("step") or 0.0)
    min_size = [F32(s) for s in attrs.get("min_size") or []]
    if not attrs.get("scale_all_sizes", True):  # MXNet-like: sizes and step relative to the image
        step = F32(ih) / F32(h) if step == F32(-1) else step * F32(ih)
        min_size = [s * F32(ih) for s in min_size]
    priors = _cell_priors(attrs, min_size)
    count = number_of_priors(attrs)
    cols = np.arange(w, dtype=F32)
    rows = np.arange(h, dtype=F32)
    if step == 0:
        cx = (cols + F32(0.5)) * (F32(iw) / F32(w))
        cy = (rows + F32(0.5)) * (F32(ih) / F32(h))
    else:
        offset = F32(attrs.get("offset") or 0.0)
        cx = (offset + cols) * step
        cy = (offset + rows) * step
    cx = np.broadcast_to(cx[None, :], (h, w))
    cy = np.broadcast_to(cy[:, None], (h, w))
    inv_w, inv_h = F32(1.0) / F32(iw), F32(1.0) / F32(ih)
    boxes = np.zeros((h, w, len(priors), 4), F32)
    for k, (dx, dy, bw, bh, clip_now) in enumerate(priors):
        x, y = cx + dx, cy + dy
        box = np.stack([(x - bw) * inv_w, (y - bh) * inv_h, (x + bw) * inv_w, (y + bh) * inv_h],
                       axis=-1)
        if clip_now:
            box = np.stack([np.maximum(box[..., 0], 0), np.maximum(box[..., 1], 0),
                            np.minimum(box[..., 2], 1), np.minimum(box[..., 3], 1)], axis=-1)
        boxes[:, :, k] = box
    # the reference writes the boxes one after another: a count that disagrees with the priors
    # generated (fixed_size with fixed_ratio) shifts the cells, and the stream is cut or padded
    boxes = boxes.reshape(-1)[: 4 * h * w * count]
    boxes = np.pad(boxes, (0, 4 * h * w * count - boxes.size))
    if attrs.get("clip"):
        boxes = np.clip(boxes, F32(0), F32(1))
    variance = [F32(v) for v in attrs.get("variance") or []] or [F32(0.1)]
    if len(variance) not in (1, 4):
        msg = f"PriorBox: variance holds {len(variance)} values (0, 1 or 4 are allowed)"
        raise ValueError(msg)
    var = np.resize(np.asarray(variance, F32), boxes.size)
    return np.stack([boxes, var]).astype(F32)


class PriorBoxes(Op):
    """What the prior-box ops share: `priors_per_cell` boxes per cell of an [h, w] feature map,
    as [2, 4 * h * w * priors] (boxes, then their variances)."""

    @classmethod
    def priors_per_cell(cls, attrs: dict) -> int:
        raise NotImplementedError

    @classmethod
    def boxes(cls, attrs: dict, h: int, w: int, ih: int, iw: int) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        size = values[0] if values else None
        if size is None:
            return [(2, DYN)]
        h, w = (int(v) for v in np.ravel(size)[:2])
        return [(2, 4 * h * w * cls.priors_per_cell(attrs))]

    @classmethod
    def infer_types(cls, attrs, types):
        return [np.dtype(F32)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        h, w = (int(v) for v in np.ravel(inputs[0])[:2])
        ih, iw = (int(v) for v in np.ravel(inputs[1])[:2])
        return [cls.boxes(attrs, h, w, ih, iw)]


class PriorBox(PriorBoxes):
    op = type = "PriorBox"
    version = "opset8"
    in_ports_count = 2
    attr_types = {
        "min_size": "floats", "max_size": "floats", "aspect_ratio": "floats", "density": "floats",
        "fixed_ratio": "floats", "fixed_size": "floats", "flip": "bool", "clip": "bool",
        "step": "float", "offset": "float", "variance": "floats", "scale_all_sizes": "bool",
        "min_max_aspect_ratios_order": "bool",
    }
    defaults = {
        "min_size": [], "max_size": [], "aspect_ratio": [], "density": [], "fixed_ratio": [],
        "fixed_size": [], "flip": False, "clip": False, "step": 0.0, "offset": 0.0, "variance": [],
        "scale_all_sizes": True, "min_max_aspect_ratios_order": True,
    }

    @classmethod
    def priors_per_cell(cls, attrs: dict) -> int:
        return number_of_priors(attrs)

    @classmethod
    def boxes(cls, attrs: dict, h: int, w: int, ih: int, iw: int) -> np.ndarray:
        return prior_boxes(attrs, h, w, ih, iw)
