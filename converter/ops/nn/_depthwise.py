"""Depthwise 2-D convolution (one filter per channel) as shifted multiply-adds over a padded
copy of the data flattened per channel: every kernel position reads one contiguous run per
channel, so numpy loops over whole output rows at once instead of a few elements at a time.
Strides split the padded data into phases (rows and columns by position modulo the stride),
where each kernel position is again a plain shift."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from converter.ops.nn._window import phases, scratch

__all__ = ["depthwise2d"]


def depthwise2d(x: np.ndarray, w: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
                dilations: Sequence[int], pads_begin: Sequence[int],
                out: Sequence[int]) -> np.ndarray:
    """x [N, C, H, W] convolved per channel with w [C, kh * kw] (at least two positions)."""
    taps = [(divmod(i * dilations[0], strides[0]), divmod(j * dilations[1], strides[1]))
            for i in range(kernel[0]) for j in range(kernel[1])]
    oh, ow = out
    cols = ow + max(b for _, (b, _) in taps)
    rows = oh + max(a for (a, _), _ in taps) + 1  # + 1: the last row's shifts run past it
    data = phases(x, strides, pads_begin, rows, cols, "depthwise.data")
    data = data.reshape(*data.shape[:4], rows * cols)
    result = np.empty((*x.shape[:2], oh, ow), np.result_type(x, w))
    offsets = [(a * cols + b, r, q) for (a, r), (b, q) in taps]
    _accumulate(data, w, offsets, cols, result)
    return result


def _accumulate(data: np.ndarray, w: np.ndarray, offsets: list[tuple[int, int, int]],
                cols: int, result: np.ndarray) -> None:
    """result [N, C, oh, ow] = the sum over kernel positions t of phase (r, q) from offset
    start on, weighted by w[:, t]: each output row cols wide, its last cols - ow dropped."""
    wide = result.shape[2] * cols
    total = scratch("depthwise.sum", (*result.shape[:2], wide), data.dtype)
    term = scratch("depthwise.term", total.shape, data.dtype)
    weights = w[:, :, None]
    for t, (start, r, q) in enumerate(offsets):
        np.multiply(data[:, :, r, q, start:start + wide], weights[:, t], out=term if t else total)
        if 0 < t < len(offsets) - 1:
            np.add(total, term, out=total)
    shape, ow = (*result.shape[:3], cols), result.shape[3]
    np.add(total.reshape(shape)[..., :ow], term.reshape(shape)[..., :ow], out=result)
