"""Depthwise 2-D convolution with a wide kernel (ConvNeXt's 7x7) as batched GEMMs. Per channel,
a block of b output columns is the kernel's kh padded data rows, laid side by side, times a
banded matrix [kh * (b + kw - 1), b] holding the filter's columns on its diagonals, made once
per layer. The band costs (b + kw - 1) / kw times the multiply-adds of the direct sum, but a
GEMM runs them many times faster than numpy's two passes per kernel position."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from converter.ops.nn._window import fit, scratch

__all__ = ["BandedDepthwise"]

_MIN_WIDTH = 5  # kernel columns from which the band beats shifted multiply-adds
_BLOCK = 28  # output columns per block, at most (wider blocks waste more of the band)
_WIDE_KERNEL = 7  # kernel columns from which several blocks per row still pay


class BandedDepthwise:
    """w [C, kh, kw] (float32 or float64) at unit strides and dilations; call with x
    [N, C, H, W], pads_begin and the output dims."""

    def __init__(self, w: np.ndarray) -> None:
        self.w = w
        self.bands: dict[int, np.ndarray] = {}

    @staticmethod
    def fits(kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int]) -> bool:
        return (len(kernel) == 2 and kernel[1] >= _MIN_WIDTH
                and all(s == 1 for s in [*strides, *dilations]))

    def pays(self, out: Sequence[int]) -> bool:
        """Whether the band beats shifted multiply-adds for these output dims: rows of one
        block, or a kernel at least 7 wide (5x5 over maps 56 wide and more loses a little)."""
        return out[1] <= _BLOCK or self.w.shape[2] >= _WIDE_KERNEL

    def _band(self, block: int) -> np.ndarray:
        """[C, 1, kh * span, block]: row dy * span + j, column x holds w[c, dy, j - x]."""
        band = self.bands.get(block)
        if band is None:
            c, kh, kw = self.w.shape
            band = np.zeros((c, kh, block + kw - 1, block), self.w.dtype)
            cols = np.arange(block)
            for dx in range(kw):
                band[:, :, cols + dx, cols] = self.w[:, :, dx, None]
            band = self.bands[block] = band.reshape(c, 1, -1, block)
        return band

    def __call__(self, x: np.ndarray, pads_begin: Sequence[int],
                 out: Sequence[int]) -> np.ndarray:
        n, c = x.shape[:2]
        _, kh, kw = self.w.shape
        oh, ow = out
        blocks = -(-ow // _BLOCK)
        block = -(-ow // blocks)
        span = block + kw - 1
        padded = fit(x, 2, [-p for p in pads_begin], [oh + kh - 1, blocks * block + kw - 1], 0,
                     "conv.data")
        padded = np.ascontiguousarray(padded, self.w.dtype)
        s_n, s_c, s_row, s_col = padded.strides
        rows = scratch("conv.band_rows", (n, c, blocks, oh, kh, span), self.w.dtype)
        if blocks == 1:  # rows y.. y + kh - 1 of the data lie end to end: one copy
            rows.reshape(n, c, oh, kh * span)[...] = as_strided(
                padded, (n, c, oh, kh * span), (s_n, s_c, s_row, s_col))
        for dy in range(kh if blocks > 1 else 0):  # each block's rows dy.., its columns
            rows[:, :, :, :, dy] = as_strided(padded[:, :, dy:], (n, c, blocks, oh, span),
                                              (s_n, s_c, block * s_col, s_row, s_col))
        result = np.matmul(rows.reshape(n, c, blocks, oh, kh * span), self._band(block))
        if blocks == 1 and block == ow:
            return result.reshape(n, c, oh, ow)
        whole = result.transpose(0, 1, 3, 2, 4).reshape(n, c, oh, blocks * block)
        return np.ascontiguousarray(whole[..., :ow])
