"""Depthwise 2-D convolution (one filter per channel) as shifted multiply-adds over a padded
copy of the data flattened per channel: every kernel position reads one contiguous run per
channel, so numpy loops over whole output rows at once instead of a few elements at a time.
Strides split the padded data into phases (rows and columns by position modulo the stride),
where each kernel position is again a plain shift. Many channels of small maps go channels
last instead: each kernel position is then one contiguous block times one row of weights
(numpy multiplies two arrays faster than rows by a per-row scalar). NativeDepthwise runs the
float32 case with unit dilations through the native kernel where there is one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from converter.ops.nn._window import phases, scratch

if TYPE_CHECKING:
    from converter.ops.native.library import Kernels

__all__ = ["NativeDepthwise", "depthwise2d"]

_SHORT_ROWS = 1024  # output elements per channel (rows as wide as the padded data) ...
_MANY_CHANNELS = 32  # ... at most, and channels at least, for the channels-last layout


def depthwise2d(x: np.ndarray, w: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
                dilations: Sequence[int], pads_begin: Sequence[int],
                out: Sequence[int]) -> np.ndarray:
    """x [N, C, H, W] convolved per channel with w [C, kh * kw] (at least two positions)."""
    taps = [(divmod(i * dilations[0], strides[0]), divmod(j * dilations[1], strides[1]))
            for i in range(kernel[0]) for j in range(kernel[1])]
    oh, ow = out
    cols = ow + max(b for _, (b, _) in taps)
    rows = oh + max(a for (a, _), _ in taps) + 1  # + 1: the last row's shifts run past it
    last = oh * cols <= _SHORT_ROWS and x.shape[1] >= _MANY_CHANNELS
    data = phases(x, strides, pads_begin, rows, cols, "depthwise.data", channels_last=last)
    result = np.empty((*x.shape[:2], oh, ow), np.result_type(x, w))
    offsets = [(a * cols + b, r, q) for (a, r), (b, q) in taps]
    if last:
        data = data.reshape(*data.shape[:3], rows * cols, x.shape[1])
    else:
        data = data.reshape(*data.shape[:4], rows * cols).transpose(0, 2, 3, 4, 1)
    _accumulate(data, w.T, offsets, cols, result.transpose(0, 2, 3, 1), last)
    return result


def _accumulate(data: np.ndarray, w: np.ndarray, offsets: list[tuple[int, int, int]],
                cols: int, result: np.ndarray, channels_last: bool) -> None:
    """result [N, oh, ow, C] = the sum over kernel positions t of phase (r, q) of data
    [N, sh, sw, rows * cols, C] from offset start on, weighted by w[t] (w [K, C]): each output
    row cols wide, its last cols - ow dropped. Partial sums lie in memory as the data does."""
    n, oh, ow, c = result.shape
    wide = oh * cols
    if channels_last:
        total = scratch("depthwise.sum", (n, wide, c), data.dtype)
        term = scratch("depthwise.term", (n, wide, c), data.dtype)
        w = np.ascontiguousarray(w)
    else:
        total = scratch("depthwise.sum", (n, c, wide), data.dtype).transpose(0, 2, 1)
        term = scratch("depthwise.term", (n, c, wide), data.dtype).transpose(0, 2, 1)
    for t, (start, r, q) in enumerate(offsets):
        np.multiply(data[:, r, q, start:start + wide], w[t], out=term if t else total)
        if 0 < t < len(offsets) - 1:
            np.add(total, term, out=total)
    shape = (n, oh, cols, c)
    np.add(total.reshape(shape)[:, :, :ow], term.reshape(shape)[:, :, :ow], out=result)


class NativeDepthwise:
    """w [C, kh, kw] float32 at unit dilations and the given strides through the native kernel;
    with the interface of BandedDepthwise (call with x [N, C, H, W], pads_begin and the output
    dims)."""

    def __init__(self, w: np.ndarray, strides: Sequence[int], native: Kernels) -> None:
        self.w = np.ascontiguousarray(w, np.float32)
        self.strides = list(strides)
        self._native = native

    @staticmethod
    def fits(kernel: Sequence[int], dilations: Sequence[int]) -> bool:
        return len(kernel) == 2 and all(d == 1 for d in dilations)

    def pays(self, out: Sequence[int]) -> bool:
        return True

    def __call__(self, x: np.ndarray, pads_begin: Sequence[int], out: Sequence[int],
                 bias: np.ndarray | None = None, relu: bool = False) -> np.ndarray:
        """x convolved, + bias [C] if bias, then max(., 0) if relu."""
        if min(pads_begin) < 0 or min(out) < 1 or x.size == 0:  # a crop, or nothing to sum
            c, kh, kw = self.w.shape
            y = depthwise2d(x, self.w.reshape(c, -1), [kh, kw], self.strides, [1, 1],
                            pads_begin, out)
            if bias is not None:
                y += bias.reshape(-1, 1, 1)
            return np.maximum(y, 0, out=y) if relu else y
        return self._native.depthwise2d(np.ascontiguousarray(x), self.w, self.strides,
                                        pads_begin, out, bias, relu)
