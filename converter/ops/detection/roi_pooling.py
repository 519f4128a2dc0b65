"""ROIPooling-2: max-pools each region of interest of a feature map into a fixed grid of bins
(the 'max' method, as Caffe and ONNX's MaxRoiPool do). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/roi-pooling-2.html

Inputs: data [N, C, H, W], rois [R, 5] (batch index, x1, y1, x2, y2 in image units). Output
[R, C, pooled_h, pooled_w]. The box is scaled and rounded half away from zero, at least 1 x 1;
bin i spans floor(i * size / pooled) to ceil((i + 1) * size / pooled), clipped to the map; an
empty bin is 0.
"""

from __future__ import annotations

import math

import numpy as np

from converter.ops.detection._roi import roi_output_shape
from converter.ops.op import Op

__all__ = ["ROIPooling"]


def _round(v: float) -> int:
    return int(math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1))


def _bins(start: int, size: int, pooled: int, limit: int) -> list[tuple[int, int]]:
    step = size / pooled
    return [(min(max(math.floor(i * step) + start, 0), limit),
             min(max(math.ceil((i + 1) * step) + start, 0), limit)) for i in range(pooled)]


class ROIPooling(Op):
    op = type = "ROIPooling"
    version = "opset2"
    in_ports_count = 2
    attr_types = {"pooled_h": "int", "pooled_w": "int", "spatial_scale": "float", "method": "str"}
    defaults = {"method": "max"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [roi_output_shape(attrs, shapes)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, rois = np.asarray(inputs[0]), np.asarray(inputs[1], np.float64)
        ph, pw, scale = attrs["pooled_h"], attrs["pooled_w"], attrs["spatial_scale"]
        out = np.zeros((len(rois), data.shape[1], ph, pw), data.dtype)
        for r, (b, x1, y1, x2, y2) in enumerate(rois):
            x0, y0 = _round(x1 * scale), _round(y1 * scale)
            width = max(_round(x2 * scale) - x0 + 1, 1)
            height = max(_round(y2 * scale) - y0 + 1, 1)
            fmap = data[int(b)]
            for i, (h0, h1) in enumerate(_bins(y0, height, ph, data.shape[2])):
                for j, (w0, w1) in enumerate(_bins(x0, width, pw, data.shape[3])):
                    if h1 > h0 and w1 > w0:
                        out[r, :, i, j] = fmap[:, h0:h1, w0:w1].max(axis=(1, 2))
        return [out]
