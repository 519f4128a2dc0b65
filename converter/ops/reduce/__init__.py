"""Reductions, sorting, misc: Reduce*, TopK, CumSum, Einsum, DFT family, NMS, Bucketize, Unique."""

from converter.ops.reduce import (
    bucketize,
    cum_sum,
    einsum,
    fft,
    non_max_suppression,
    reductions,
    top_k,
    unique,
)

__all__ = [
    "bucketize",
    "cum_sum",
    "einsum",
    "fft",
    "non_max_suppression",
    "reductions",
    "top_k",
    "unique",
]
