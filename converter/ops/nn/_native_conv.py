"""Convolution of float32 [N, C, H, W] data through the native GEMM (converter/ops/native/
gemm.c): each group's filters packed once, at plan time; the columns copied by the native
im2col, or none at all for a 1x1 kernel at unit strides without padding; a bias per output
channel and a ReLU added in the GEMM's own pass over the output."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from converter.ops.nn._window import scratch

if TYPE_CHECKING:
    from converter.ops.native.library import Kernels

__all__ = ["NativeConv"]


class NativeConv:
    """matrix [G, Og, Cg * kh * kw] (float32) as packed GEMM operands for `native`."""

    def __init__(self, matrix: np.ndarray, kernel: list[int], native: Kernels) -> None:
        self.native, self.kernel, self.taps = native, kernel, math.prod(kernel)
        self.groups, self.out_channels = matrix.shape[:2]
        self.packed = native.pack_rows(np.ascontiguousarray(matrix))

    @staticmethod
    def fits(matrix: np.ndarray, kernel: list[int]) -> bool:
        """Whether filters of this matrix go through the GEMM: float32, 2-D, not depthwise."""
        groups, og, columns = matrix.shape
        depthwise = groups > 1 and og == 1 and columns == math.prod(kernel)
        return matrix.dtype == np.float32 and len(kernel) == 2 and columns > 0 and not depthwise

    @staticmethod
    def takes(x: np.ndarray, geometry: tuple) -> bool:
        """Whether data x with this geometry (strides, dilations, pads_begin, out) fits: float32
        [N, C, H, W], unit dilations, no crop, an output to make."""
        _, dilations, pads_begin, out = geometry
        return (x.dtype == np.float32 and x.ndim == 4 and dilations == [1, 1]
                and min(pads_begin) >= 0 and min(out) >= 1)

    def __call__(self, x: np.ndarray, geometry: tuple, bias: np.ndarray | None,
                 relu: bool) -> np.ndarray:
        """x convolved, + bias [G * Og] if bias, then max(., 0) if relu."""
        strides, _, pads_begin, out = geometry
        x = np.ascontiguousarray(x)
        batch, positions, og, groups = x.shape[0], math.prod(out), self.out_channels, self.groups
        direct = (self.taps == 1 and strides == [1, 1] and pads_begin == [0, 0]
                  and list(x.shape[2:]) == list(out))
        if direct:
            cols = x.reshape(batch, groups, -1, positions)
        else:
            cols = scratch("conv.columns", (batch, x.shape[1], self.taps, positions), x.dtype)
            self.native.im2col(x, cols, self.kernel, strides, pads_begin, out)
            cols = cols.reshape(batch, groups, -1, positions)
        y = np.empty((batch, groups, og, positions), np.float32)
        bias = None if bias is None else bias.reshape(groups, og)
        for i in range(batch):
            self.native.gemm(self.packed, cols[i], y[i], bias, relu)
        return y.reshape(batch, groups * og, *out)
