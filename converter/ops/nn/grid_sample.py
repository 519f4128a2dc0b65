"""GridSample-9: samples data [N, C, H, W] at the normalized (x, y) points of grid
[N, H_out, W_out, 2], giving [N, C, H_out, W_out]. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/image/grid-sample-9.html

A grid value -1 / 1 is the centre of the first / last pixel (align_corners) or its outer edge.
padding_mode says what lies outside: zeros, the border pixels, or the image reflected at its
border (at the pixel centres with align_corners, else at the edges). 'bicubic' uses
A = -0.75 and applies the padding mode to each of its 4 x 4 taps, not to the point.
"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["GridSample"]

_A = -0.75


def _reflect(x: np.ndarray, low: float, high: float) -> np.ndarray:
    span = high - low
    if span <= 0:
        return np.full_like(x, low)
    dx = np.where(x < low, low - x, x - high)
    flips = np.floor(dx / span)
    rest = dx - flips * span
    even = flips % 2 == 0
    below = np.where(even, low + rest, high - rest)
    above = np.where(even, high - rest, low + rest)
    return np.where(x < low, below, np.where(x > high, above, x))


class _Sampler:
    """Reads data at integer (y, x) under the padding mode, for every output point."""

    def __init__(self, data: np.ndarray, attrs: dict) -> None:
        self.data, self.padding = data, attrs["padding_mode"]
        self.corners = attrs["align_corners"]
        self.batch = np.arange(data.shape[0])[:, None, None]

    def bounds(self, size: int) -> tuple[float, float]:
        return (0.0, size - 1.0) if self.corners else (-0.5, size - 0.5)

    def coordinate(self, g: np.ndarray, size: int, mode: str) -> np.ndarray:
        """A grid value as a pixel coordinate, border / reflection applied (bicubic applies
        them to each tap instead)."""
        x = (g + 1) / 2 * (size - 1) if self.corners else ((g + 1) * size - 1) / 2
        if mode == "bicubic":
            return x
        if self.padding == "border":
            return np.clip(x, 0, size - 1)
        if self.padding == "reflection":
            return _reflect(x, *self.bounds(size))
        return x

    def read(self, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        """[N, H_out, W_out, C] values at integer coordinates."""
        h, w = self.data.shape[2:]
        inside = (y >= 0) & (y < h) & (x >= 0) & (x < w)
        if self.padding == "reflection":
            y = np.rint(_reflect(y.astype(np.float64), *self.bounds(h))).astype(np.int64)
            x = np.rint(_reflect(x.astype(np.float64), *self.bounds(w))).astype(np.int64)
        y, x = np.clip(y, 0, h - 1), np.clip(x, 0, w - 1)
        values = self.data[self.batch, :, y, x]
        return values * inside[..., None] if self.padding == "zeros" else values


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    w0 = ((_A * (t + 1) - 5 * _A) * (t + 1) + 8 * _A) * (t + 1) - 4 * _A
    w1 = ((_A + 2) * t - (_A + 3)) * t * t + 1
    w2 = ((_A + 2) * (1 - t) - (_A + 3)) * (1 - t) * (1 - t) + 1
    return [w0, w1, w2, 1 - w0 - w1 - w2]


def _sample(s: _Sampler, mode: str, y: np.ndarray, x: np.ndarray) -> np.ndarray:
    if mode == "nearest":
        return s.read(np.rint(y).astype(np.int64), np.rint(x).astype(np.int64))
    y0, x0 = np.floor(y), np.floor(x)
    ty, tx = (y - y0)[..., None], (x - x0)[..., None]
    y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
    if mode == "bilinear":
        return ((1 - ty) * ((1 - tx) * s.read(y0, x0) + tx * s.read(y0, x0 + 1))
                + ty * ((1 - tx) * s.read(y0 + 1, x0) + tx * s.read(y0 + 1, x0 + 1)))
    wy, wx = _cubic_weights(ty), _cubic_weights(tx)
    return sum(wy[i] * sum(wx[j] * s.read(y0 + i - 1, x0 + j - 1) for j in range(4))
               for i in range(4))


class GridSample(Op):
    op = type = "GridSample"
    version = "opset9"
    in_ports_count = 2
    attr_types = {"align_corners": "bool", "mode": "str", "padding_mode": "str"}
    defaults = {"align_corners": False, "mode": "bilinear", "padding_mode": "zeros"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        data, grid = shapes[0] or (-1, -1, -1, -1), shapes[1] or (-1, -1, -1, 2)
        return [(data[0] if data[0] >= 0 else grid[0], data[1], grid[1], grid[2])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, grid = np.asarray(inputs[0]), np.asarray(inputs[1], np.float64)
        s = _Sampler(data.astype(np.float64), attrs)
        x = s.coordinate(grid[..., 0], data.shape[3], attrs["mode"])
        y = s.coordinate(grid[..., 1], data.shape[2], attrs["mode"])
        out = _sample(s, attrs["mode"], y, x)
        return [np.ascontiguousarray(out.transpose(0, 3, 1, 2)).astype(data.dtype)]
