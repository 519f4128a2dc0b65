"""PSROIPooling-1: R-FCN's position-sensitive ROI pooling, each output bin read from its own
group of channels. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/psroi-pooling-1.html

Inputs: data [N, C, H, W], rois [R, 5] (batch index, x1, y1, x2, y2). Output
[R, output_dim, group_size, group_size]. 'average': the box rounded (ends inclusive) and scaled;
bin (i, j) of output channel c averages channel (c * group_size + i) * group_size + j over its
cells (clipped to the map; an empty bin is 0). 'bilinear': spatial_bins_x * spatial_bins_y
sample points per bin, channel (bin_y * spatial_bins_x + bin_x) * output_dim + c; the box is
scaled, then stretched over the map's (size - 1), so boxes are given in [0, 1]; points off the
map add 0.
"""

from __future__ import annotations

import math

import numpy as np

from converter.ops.detection._roi import roi_output_shape
from converter.ops.op import Op

__all__ = ["PSROIPooling"]

F32 = np.float32


def _average(fmap: np.ndarray, box: np.ndarray, attrs: dict) -> np.ndarray:
    size, scale = attrs["group_size"], F32(attrs["spatial_scale"])
    _, height, width = fmap.shape
    rounded = np.floor(np.abs(box) + F32(0.5)) * np.sign(box)  # roundf
    x0, y0 = rounded[0] * scale, rounded[1] * scale
    x1, y1 = (rounded[2] + 1) * scale, (rounded[3] + 1) * scale
    bin_w, bin_h = (x1 - x0) / F32(size), (y1 - y0) / F32(size)
    out = np.zeros((attrs["output_dim"], size, size), F32)
    for i in range(size):
        h0 = min(max(math.floor(y0 + i * bin_h), 0), height)
        h1 = min(max(math.ceil(y0 + (i + 1) * bin_h), 0), height)
        for j in range(size):
            w0 = min(max(math.floor(x0 + j * bin_w), 0), width)
            w1 = min(max(math.ceil(x0 + (j + 1) * bin_w), 0), width)
            channels = (np.arange(attrs["output_dim"]) * size + i) * size + j
            if h1 > h0 and w1 > w0:
                out[:, i, j] = fmap[channels, h0:h1, w0:w1].mean(axis=(1, 2))
    return out


def _bilinear(fmap: np.ndarray, box: np.ndarray, attrs: dict) -> np.ndarray:
    size, dim = attrs["group_size"], attrs["output_dim"]
    bins_x, bins_y = attrs["spatial_bins_x"], attrs["spatial_bins_y"]
    _, height, width = fmap.shape
    x0, y0, x1, y1 = box * F32(attrs["spatial_scale"])
    bin_w, bin_h = (x1 - x0) / F32(bins_x), (y1 - y0) / F32(bins_y)
    scale_w = bin_w * F32(width - 1) / F32(size - 1) if size > 1 else F32(0)
    scale_h = bin_h * F32(height - 1) / F32(size - 1) if size > 1 else F32(0)
    out = np.zeros((dim, size, size), F32)
    for by in range(bins_y):
        for bx in range(bins_x):
            sx, sy = x0 + bx * bin_w, y0 + by * bin_h
            group = fmap[(by * bins_x + bx) * dim:(by * bins_x + bx + 1) * dim]
            for i in range(size):
                py = i * scale_h + sy * (height - 1) if size > 1 else (2 * sy + bin_h) * (
                    height - 1) / 2
                for j in range(size):
                    px = j * scale_w + sx * (width - 1) if size > 1 else (2 * sx + bin_w) * (
                        width - 1) / 2
                    if 0 <= px < width and 0 <= py < height:
                        out[:, i, j] += _sample(group, F32(px), F32(py))
    return out / F32(bins_x * bins_y)


def _sample(group: np.ndarray, x: F32, y: F32) -> np.ndarray:
    height, width = group.shape[1:]
    left, top = math.floor(x), math.floor(y)
    right, bottom = min(math.ceil(x), width - 1), min(math.ceil(y), height - 1)
    upper = group[:, top, left] + (group[:, top, right] - group[:, top, left]) * (x - left)
    lower = group[:, bottom, left] + (group[:, bottom, right] - group[:, bottom, left]) * (
        x - left)
    return upper + (lower - upper) * (y - top)


class PSROIPooling(Op):
    op = type = "PSROIPooling"
    version = "opset1"
    in_ports_count = 2
    attr_types = {"output_dim": "int", "group_size": "int", "spatial_scale": "float",
                  "mode": "str", "spatial_bins_x": "int", "spatial_bins_y": "int"}
    defaults = {"group_size": 1, "mode": "average", "spatial_bins_x": 1, "spatial_bins_y": 1}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        size = attrs["group_size"]
        rois = roi_output_shape({"pooled_h": size, "pooled_w": size}, shapes)[0]
        return [(rois, attrs["output_dim"], size, size)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, rois = np.asarray(inputs[0], F32), np.asarray(inputs[1], F32)
        pool = _average if attrs["mode"] == "average" else _bilinear
        return [np.stack([pool(data[int(r[0])], r[1:], attrs) for r in rois]).astype(data.dtype)
                if len(rois) else np.zeros((0, attrs["output_dim"], attrs["group_size"],
                                            attrs["group_size"]), data.dtype)]
