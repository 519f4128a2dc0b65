"""Reductions, sorting, misc: Reduce*, TopK, CumSum, Einsum, DFT family, STFT, NMS, Bucketize,
Unique, CTCGreedyDecoderSeqLen, CTCLoss."""

from converter.ops.reduce import (
    bucketize,
    ctc_greedy_decoder,
    ctc_loss,
    cum_sum,
    einsum,
    fft,
    non_max_suppression,
    reductions,
    stft,
    top_k,
    unique,
)

__all__ = [
    "bucketize",
    "ctc_greedy_decoder",
    "ctc_loss",
    "cum_sum",
    "einsum",
    "fft",
    "non_max_suppression",
    "reductions",
    "stft",
    "top_k",
    "unique",
]
