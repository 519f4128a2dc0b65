"""Convolution of float32 [N, C, H, W] data through the native GEMM (converter/ops/native/
gemm.c): each group's filters packed once, at plan time; no columns for a 1x1 kernel at unit
strides without padding (the data is the operand) or for a wider kernel on all but the
narrowest maps (shifted rows of the padded data, split into phases by the strides, are), else
columns copied by the native im2col; a bias per output channel and a ReLU added in the GEMM's
own pass over the output."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from converter.ops.native.library import address
from converter.ops.nn._window import scratch

if TYPE_CHECKING:
    from converter.ops.native.library import Kernels, ShiftedGemm

__all__ = ["NativeConv"]

# the padded rows' width over the output's up to which no columns are copied: the GEMM's extra
# work costs less than the copies even on 4x4 and 7x7 maps (densenet121's 7x7 3x3 layers:
# 31 against 69 us, 1000 filters: 2.0 against 2.3 ms)
_WIDER = 2.0
_ROOM = 32  # values readable after a shifted row's last: a GEMM panel's width


class NativeConv:
    """matrix [G, Og, Cg * kh * kw] (float32) as packed GEMM operands for `native`."""

    def __init__(self, matrix: np.ndarray, kernel: list[int], native: Kernels) -> None:
        self.native, self.kernel, self.taps = native, kernel, math.prod(kernel)
        self.groups, self.out_channels = matrix.shape[:2]
        self.packed = native.pack_rows(np.ascontiguousarray(matrix))
        self.shifted: dict[tuple, ShiftedGemm] = {}

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

    def bound(self, shape: tuple[int, ...], geometry: tuple, bias: np.ndarray | None,
              relu: bool) -> Callable[[np.ndarray, np.ndarray | None], np.ndarray]:
        """f(x, into): data x (C-contiguous, of `shape`) convolved, + bias [G * Og] if bias,
        then max(., 0) if relu, into `into` (C-contiguous, the output's shape) or a new array;
        every shape's work done here, once."""
        strides, _, pads_begin, out = geometry
        batch, channels = shape[:2]
        y_shape = (batch, self.groups * self.out_channels, *out)
        x_item, y_item = (4 * math.prod(s[1:]) for s in (shape, y_shape))
        if self.taps > 1 and out[1] + (self.kernel[1] - 1) // strides[1] <= out[1] * _WIDER:
            gemm, pad, padded = self._shifted(shape, strides, pads_begin, out, bias, relu)
            item = 4 * math.prod(padded[1:])
        elif self.taps == 1 and strides == [1, 1] and pads_begin == [0, 0] and list(
                shape[2:]) == list(out):
            rows = None if bias is None else bias.reshape(self.groups, self.out_channels)
            gemm = self.native.gemm_call(self.packed, rows, relu, self.out_channels,
                                         channels // self.groups, math.prod(out))
            pad, padded, item = None, None, x_item  # the data is the GEMM's operand
        else:
            return partial(self._through_columns, geometry=geometry, bias=bias, relu=relu)

        def run(x: np.ndarray, into: np.ndarray | None) -> np.ndarray:
            y = np.empty(y_shape, np.float32) if into is None else into
            operand = x if pad is None else scratch("conv.shifted", padded, np.float32)
            at, y_at = address(operand), address(y)
            if pad is not None:
                pad(address(x), at)
            for i in range(batch):
                gemm(at + i * item, y_at + i * y_item)
            return y
        return run

    def _through_columns(self, x: np.ndarray, into: np.ndarray | None, geometry: tuple,
                         bias: np.ndarray | None, relu: bool) -> np.ndarray:
        """The convolution over columns copied by the native im2col."""
        strides, _, pads_begin, out = geometry
        batch, positions, groups = x.shape[0], math.prod(out), self.groups
        y = (np.empty((batch, groups * self.out_channels, *out), np.float32)
             if into is None else into)
        cols = scratch("conv.columns", (batch, x.shape[1], self.taps, positions), x.dtype)
        self.native.im2col(x, cols, self.kernel, strides, pads_begin, out)
        cols = cols.reshape(batch, groups, -1, positions)
        planes = y.reshape(batch, groups, self.out_channels, positions)
        rows = None if bias is None else bias.reshape(groups, self.out_channels)
        for i in range(batch):
            self.native.gemm(self.packed, cols[i], planes[i], rows, relu)
        return y

    def _shifted(self, shape: tuple[int, ...], strides: list[int], pads_begin: list[int],
                 out: list[int], bias: np.ndarray | None, relu: bool) -> tuple:
        """A convolution with no columns: the data padded and split by the strides into phases
        whose rows are as wide as the output's plus what the kernel reaches beyond it; kernel
        position (i, j) is phase (i % sh, j % sw) shifted by i // sh rows and j // sw columns.
        The GEMM's output is that wide; it stores only the output's columns. Its GEMM and
        padding calls, and the padded data's shape."""
        (oh, ow), (kh, kw), (sh, sw) = out, self.kernel, strides
        rows, width = oh + (kh - 1) // sh, ow + (kw - 1) // sw
        batch, channels = shape[:2]
        per_group = sh * sw * channels // self.groups * rows * width
        padded = (batch, self.groups, per_group + width + _ROOM)
        pad = self.native.pad_channels_call(shape, padded, pads_begin, rows, width, strides)
        gemm = self._shifted_gemm(channels // self.groups, rows, width, strides, bias, relu)
        return gemm.call(self.out_channels, oh * ow, padded[2]), pad, padded

    def _shifted_gemm(self, channels: int, rows: int, width: int, strides: list[int],
                      bias: np.ndarray | None, relu: bool) -> ShiftedGemm:
        """The GEMM over shifted rows for this data shape, strides, bias (flat, kept by the
        caller) and ReLU, made once."""
        key = (channels, rows, width, *strides, id(bias), relu)
        if key not in self.shifted:
            (kh, kw), (sh, sw), plane = self.kernel, strides, rows * width
            c, i, j = np.meshgrid(np.arange(channels), np.arange(kh), np.arange(kw),
                                  indexing="ij")
            phase = (i % sh) * sw + j % sw
            shifts = ((phase * channels + c) * plane + i // sh * width + j // sw)
            shifts = shifts.astype(np.uint64).ravel()
            rows_bias = None if bias is None else bias.reshape(self.groups, self.out_channels)
            ow = width - (kw - 1) // sw
            self.shifted[key] = self.native.shifted_gemm(self.packed, shifts, rows_bias, relu,
                                                         (width, ow))
        return self.shifted[key]
