"""ROIAlign-9: pools each region of interest of a feature map into a fixed grid, sampling it by
bilinear interpolation. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/roi-align-9.html

Inputs: data [N, C, H, W], rois [R, 4] (x1, y1, x2, y2 in image units), batch_indices [R].
Output [R, C, pooled_h, pooled_w]. A box coordinate c becomes c * spatial_scale
('asymmetric', each box then at least 1 x 1), c * spatial_scale - 0.5 ('half_pixel_for_nn',
ONNX's half_pixel) or (c + 0.5) * spatial_scale - 0.5 ('half_pixel'). A sample farther than
one pixel outside the map counts as 0; one closer is clamped to the border. 'avg' is the mean
of the samples of each bin, 'max' their maximum and 0 (as OpenVINO's CPU plugin computes it).
"""

from __future__ import annotations

import math

import numpy as np

from converter.ops.detection._roi import roi_output_shape
from converter.ops.op import Op

__all__ = ["ROIAlign"]


def _axis_samples(start: float, size: float, bins: int, grid: int, limit: int):
    """Per sample along one axis: low index, high index, weights of both, and validity."""
    pos = start + (np.arange(bins * grid) // grid) * (size / bins) \
        + ((np.arange(bins * grid) % grid) + 0.5) * (size / bins / grid)
    valid = (pos >= -1.0) & (pos <= limit)
    pos = np.maximum(pos, 0.0)
    low = np.minimum(np.floor(pos).astype(np.int64), limit - 1)
    high = np.minimum(low + 1, limit - 1)
    pos = np.where(low >= limit - 1, low, pos)
    frac = pos - low
    return low, high, 1.0 - frac, frac, valid


def _pool_roi(fmap: np.ndarray, box: np.ndarray, attrs: dict) -> np.ndarray:
    ph, pw = attrs["pooled_h"], attrs["pooled_w"]
    mode, scale = attrs["aligned_mode"], attrs["spatial_scale"]
    shift = {"asymmetric": 0.0, "half_pixel_for_nn": -0.5, "half_pixel": 0.5 * scale - 0.5}[mode]
    x1, y1, x2, y2 = box * scale + shift
    width, height = x2 - x1, y2 - y1
    if mode == "asymmetric":
        width, height = max(width, 1.0), max(height, 1.0)
    ratio = attrs["sampling_ratio"]
    gh = ratio if ratio > 0 else max(math.ceil(height / ph), 1)
    gw = ratio if ratio > 0 else max(math.ceil(width / pw), 1)
    yl, yh, wy0, wy1, vy = _axis_samples(y1, height, ph, gh, fmap.shape[1])
    xl, xh, wx0, wx1, vx = _axis_samples(x1, width, pw, gw, fmap.shape[2])
    valid = (vy[:, None] & vx[None, :]).astype(fmap.dtype)
    corners = [fmap[:, a][:, :, b] * (wa[:, None] * wb[None, :] * valid)
               for a, wa in ((yl, wy0), (yh, wy1)) for b, wb in ((xl, wx0), (xh, wx1))]
    samples = sum(corners).reshape(fmap.shape[0], ph, gh, pw, gw)
    if attrs["mode"] == "max":  # OpenVINO's max starts from 0
        return np.maximum(samples.max(axis=(2, 4)), 0)
    return samples.mean(axis=(2, 4))


class ROIAlign(Op):
    op = type = "ROIAlign"
    version = "opset9"
    in_ports_count = 3
    attr_types = {"pooled_h": "int", "pooled_w": "int", "sampling_ratio": "int",
                  "spatial_scale": "float", "mode": "str", "aligned_mode": "str"}
    defaults = {"aligned_mode": "asymmetric"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [roi_output_shape(attrs, shapes)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, rois, batch = np.asarray(inputs[0]), np.asarray(inputs[1]), np.asarray(inputs[2])
        out = np.zeros((len(rois), data.shape[1], attrs["pooled_h"], attrs["pooled_w"]),
                       data.dtype)
        for i, (box, b) in enumerate(zip(rois.astype(np.float64), batch)):
            out[i] = _pool_roi(data[int(b)].astype(np.float64), box, attrs)
        return [out]
