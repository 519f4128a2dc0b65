"""DeformableConvolution-8: a convolution whose kernel taps move by learned offsets (sampled
bilinearly), optionally scaled by a mask. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/convolution/deformable-convolution-8.html

Inputs: data [N, C, H, W], offsets [N, deformable_group * kH * kW * 2, oH, oW] ((y, x) per tap),
filters [M, C / group, kH, kW], mask [N, deformable_group * kH * kW, oH, oW] (optional).
With bilinear_interpolation_pad a sample reads the four pixels around it, those outside the map
as 0; without, a sample outside [0, H) x [0, W) is 0 and one inside reads the border pixels
for neighbours beyond it (as OpenVINO's CPU plugin computes it).
"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["DeformableConvolution"]


def _bilinear(img: np.ndarray, y: np.ndarray, x: np.ndarray, pad: bool) -> np.ndarray:
    """img [C, H, W] at float points y, x [...] -> [C, ...]."""
    h, w = img.shape[1:]
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    ly, lx = y - y0, x - x0
    out = np.zeros((img.shape[0], *y.shape), np.float64)
    for dy, wy in ((0, 1 - ly), (1, ly)):
        for dx, wx in ((0, 1 - lx), (1, lx)):
            yy, xx = y0 + dy, x0 + dx
            inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w) if pad else True
            values = img[:, np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)]
            out += values * (wy * wx * inside)
    if not pad:
        out *= (y >= 0) & (y < h) & (x >= 0) & (x < w)
    return out


class DeformableConvolution(Op):
    op = type = "DeformableConvolution"
    version = "opset8"
    in_ports_count = 4
    attr_types = {"strides": "ints", "pads_begin": "ints", "pads_end": "ints",
                  "dilations": "ints", "auto_pad": "str", "group": "int",
                  "deformable_group": "int", "bilinear_interpolation_pad": "bool"}
    defaults = {"auto_pad": "explicit", "group": 1, "deformable_group": 1,
                "bilinear_interpolation_pad": False}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        data, offsets, filters = shapes[0], shapes[1], shapes[2]
        batch = data[0] if data is not None else -1
        out = filters[0] if filters is not None else -1
        spatial = tuple(offsets[2:]) if offsets is not None else (-1, -1)
        return [(batch, out, *spatial)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data = np.asarray(inputs[0], np.float64)
        offsets, filters = np.asarray(inputs[1], np.float64), np.asarray(inputs[2], np.float64)
        n, c, _, _ = data.shape
        m, _, kh, kw = filters.shape
        oh, ow = offsets.shape[2:]
        groups, dgroups = attrs["group"], attrs["deformable_group"]
        (sy, sx), (dy, dx), (py, px) = attrs["strides"], attrs["dilations"], attrs["pads_begin"]
        taps_y = (np.arange(kh) * dy)[:, None].repeat(kw, 1).ravel()
        taps_x = np.tile(np.arange(kw) * dx, kh)
        base_y = taps_y[:, None, None] + (np.arange(oh) * sy - py)[None, :, None]
        base_x = taps_x[:, None, None] + (np.arange(ow) * sx - px)[None, None, :]
        shift = offsets.reshape(n, dgroups, kh * kw, 2, oh, ow)
        per_group = c // dgroups
        cols = np.zeros((n, c, kh * kw, oh, ow), np.float64)
        for b in range(n):
            for g in range(dgroups):
                chans = slice(g * per_group, (g + 1) * per_group)
                cols[b, chans] = _bilinear(data[b, chans], base_y + shift[b, g, :, 0],
                                           base_x + shift[b, g, :, 1],
                                           attrs["bilinear_interpolation_pad"])
        if len(inputs) > 3:
            mask = np.asarray(inputs[3], np.float64).reshape(n, dgroups, 1, kh * kw, oh, ow)
            cols = (cols.reshape(n, dgroups, per_group, kh * kw, oh, ow) * mask).reshape(cols.shape)
        cols = cols.reshape(n, groups, c // groups * kh * kw, oh * ow)
        weights = filters.reshape(groups, m // groups, -1)
        out = np.einsum("gmk,ngkp->ngmp", weights, cols).reshape(n, m, oh, ow)
        return [out.astype(np.asarray(inputs[0]).dtype)]
