"""PriorBoxClustered-1: anchor boxes of given widths and heights for every cell of a feature map,
normalised by the image size. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/prior-box-clustered-1.html

Inputs: output_size (the feature map's [H, W]) and image_size ([IH, IW]), both integer.
Output [2, 4 * H * W * P] float32 (P = len(width)): row 0 the boxes (xmin, ymin, xmax, ymax per
prior, cells in row-major order), row 1 their variances (4 per box, or one value for all).
Cell centres are (col + offset) * step_w and (row + offset) * step_h, the steps falling back to
`step`, then (both 0) to the image size over the map size; float32 as OpenVINO's reference.
"""

from __future__ import annotations

import numpy as np

from converter.ops.detection.prior_box import PriorBoxes

__all__ = ["PriorBoxClustered"]

F32 = np.float32


def _steps(attrs: dict, h: int, w: int, ih: int, iw: int) -> tuple[F32, F32]:
    step = F32(attrs.get("step") or 0.0)
    step_w = F32(attrs.get("step_w") or 0.0) or step
    step_h = F32(attrs.get("step_h") or 0.0) or step
    if step_w == 0 and step_h == 0:
        return F32(iw) / F32(w), F32(ih) / F32(h)
    return step_w, step_h


class PriorBoxClustered(PriorBoxes):
    op = type = "PriorBoxClustered"
    version = "opset1"
    in_ports_count = 2
    attr_types = {"width": "floats", "height": "floats", "clip": "bool", "step": "float",
                  "step_w": "float", "step_h": "float", "offset": "float", "variance": "floats"}
    defaults = {"clip": True, "step": 0.0, "step_w": 0.0, "step_h": 0.0, "offset": 0.5,
                "variance": []}

    @classmethod
    def priors_per_cell(cls, attrs: dict) -> int:
        return len(attrs["width"])

    @classmethod
    def boxes(cls, attrs: dict, h: int, w: int, ih: int, iw: int) -> np.ndarray:
        step_w, step_h = _steps(attrs, h, w, ih, iw)
        offset = F32(attrs.get("offset") or 0.0)
        cx = ((np.arange(w, dtype=F32) + offset) * step_w)[None, :, None]
        cy = ((np.arange(h, dtype=F32) + offset) * step_h)[:, None, None]
        half_w = np.asarray(attrs["width"], F32) / F32(2)
        half_h = np.asarray(attrs["height"], F32) / F32(2)
        cx, cy = np.broadcast_arrays(cx, cy, half_w[None, None, :])[:2]
        boxes = np.stack([(cx - half_w) / F32(iw), (cy - half_h) / F32(ih),
                          (cx + half_w) / F32(iw), (cy + half_h) / F32(ih)], axis=-1)
        if attrs.get("clip"):
            boxes = np.clip(boxes, F32(0), F32(1))
        boxes = boxes.astype(F32).reshape(-1)
        variance = [F32(v) for v in attrs.get("variance") or []] or [F32(0.1)]
        if len(variance) not in (1, 4):
            msg = f"PriorBoxClustered: variance holds {len(variance)} values (0, 1 or 4)"
            raise ValueError(msg)
        return np.stack([boxes, np.resize(np.asarray(variance, F32), boxes.size)])
