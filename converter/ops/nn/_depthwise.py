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
    wide = oh * cols  # each output row followed by cols - ow positions that are dropped
    total = scratch("depthwise.sum", (*x.shape[:2], wide), x.dtype)
    term = scratch("depthwise.term", total.shape, x.dtype)
    weights = w[:, :, None]
    for t, ((a, r), (b, q)) in enumerate(taps):
        start = a * cols + b
        np.multiply(data[:, :, r, q, start:start + wide], weights[:, t], out=term if t else total)
        if 0 < t < len(taps) - 1:
            np.add(total, term, out=total)
    result = np.empty((*x.shape[:2], oh, ow), np.result_type(x, w))
    shape = (*x.shape[:2], oh, cols)
    return np.add(total.reshape(shape)[..., :ow], term.reshape(shape)[..., :ow], out=result)
