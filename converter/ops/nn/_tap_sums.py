"""Unit-stride convolution as one GEMM per batch item over the padded data, then the kernel
positions' products summed at their shifts. Columns (im2col) copy the data once per kernel
position; this reads it once and instead sums output-sized partial results once per kernel
position, so it wins where a layer makes fewer channels than it takes (DenseNet's 3x3 layers:
128 in, 32 out)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from converter.ops.nn._window import fit, scratch

__all__ = ["tap_matrix", "tap_sums", "tap_sums_fit", "tap_sums_pay"]

_MACS_PER_COPY = 100  # multiply-adds in a GEMM per element copied or added, roughly


def tap_sums_fit(out_channels: int, in_channels: int, strides: Sequence[int], taps: int) -> bool:
    """Whether tap_sums can beat columns: unit strides, several kernel positions, and fewer
    output channels than input channels (partial sums smaller than columns)."""
    return taps > 1 and all(s == 1 for s in strides) and out_channels < in_channels


def tap_sums_pay(out_channels: int, in_channels: int, kernel: Sequence[int],
                 dilations: Sequence[int], out: Sequence[int]) -> bool:
    """Whether summing O partial results beats copying C columns per kernel position on these
    output dims, the GEMM's extra work over the padding counted (small maps, wide kernels)."""
    positions = math.prod(out)
    padded = math.prod(o + (k - 1) * d for o, k, d in zip(out, kernel, dilations))
    extra = in_channels * (padded - positions) / _MACS_PER_COPY
    return out_channels * (positions + extra) < in_channels * positions


def tap_matrix(w: np.ndarray, kernel: Sequence[int]) -> np.ndarray:
    """Filters [O, C * K] (K kernel positions, innermost) as [K * O, C], kernel position major."""
    taps = math.prod(kernel)
    o, ck = w.shape
    return np.ascontiguousarray(w.reshape(o, ck // taps, taps).transpose(2, 0, 1)
                                .reshape(taps * o, ck // taps))


def tap_sums(x: np.ndarray, matrix: np.ndarray, kernel: Sequence[int],
             dilations: Sequence[int], pads_begin: Sequence[int],
             out: Sequence[int]) -> np.ndarray:
    """x [N, C, *spatial] convolved with unit strides by `matrix` (tap_matrix) -> [N, O, *out]."""
    n, c = x.shape[:2]
    need = [o + (k - 1) * d for o, k, d in zip(out, kernel, dilations)]
    padded = fit(x, 2, [-p for p in pads_begin], need, 0, "conv.data")
    taps = math.prod(kernel)
    o = matrix.shape[0] // taps
    parts = scratch("conv.taps", (n, taps * o, math.prod(need)), x.dtype)
    np.matmul(matrix, padded.reshape(n, c, -1), out=parts)
    parts = parts.reshape(n, taps, o, *need)
    views = [parts[(slice(None), t, slice(None),
                    *(slice(i * d, i * d + size) for i, d, size in zip(pos, dilations, out)))]
             for t, pos in enumerate(np.ndindex(*kernel))]
    result = np.add(views[0], views[1])
    for view in views[2:]:
        result += view
    return result
