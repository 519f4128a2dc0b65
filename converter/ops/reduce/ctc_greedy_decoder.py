"""CTCGreedyDecoderSeqLen-6: greedy CTC decoding of logits [N, T, C] with per-batch lengths.
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sequence/ctc-greedy-decoder-seq-len-6.html
And CTCGreedyDecoder-1, its older form: logits [T, N, C], a [T, N] mask (a row's steps end at
its first 0), the last class the blank, and the classes [N, T, 1, 1] as floats.

Inputs: data [N, T, C], sequence_length [N] and optionally blank_index (a scalar or [1];
C - 1 without it). For each of the first sequence_length[n] steps the best class is kept unless
it is the blank or (merge_repeated) the same as the step before. Outputs: the classes [N, T]
(padded with -1) and how many each row holds [N].
"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["CTCGreedyDecoder", "CTCGreedyDecoderSeqLen"]


def decode(data: np.ndarray, lengths: np.ndarray, blank: int,
           merge: bool) -> tuple[np.ndarray, np.ndarray]:
    """The classes [N, T] (-1 past the end) and their counts [N] of logits [N, T, C]."""
    n, t, _ = data.shape
    best = np.argmax(data, axis=2)
    classes = np.full((n, t), -1, np.int64)
    counts = np.zeros(n, np.int64)
    for b in range(n):
        previous = -1
        for step in range(min(int(lengths[b]), t)):
            cls_ = int(best[b, step])
            if cls_ != blank and not (merge and cls_ == previous):
                classes[b, counts[b]] = cls_
                counts[b] += 1
            previous = cls_
    return classes, counts


class CTCGreedyDecoderSeqLen(Op):
    op = type = "CTCGreedyDecoderSeqLen"
    version = "opset6"
    in_ports_count = 3
    out_ports_count = 2
    attr_types = {"merge_repeated": "bool", "classes_index_type": "type",
                  "sequence_length_type": "type"}
    defaults = {"merge_repeated": True, "classes_index_type": np.dtype(np.int32),
                "sequence_length_type": np.dtype(np.int32)}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        data = shapes[0]
        if data is None:
            return [None, None]
        return [(data[0], data[1]), (data[0],)]

    @classmethod
    def infer_types(cls, attrs, types):
        return [np.dtype(attrs["classes_index_type"]), np.dtype(attrs["sequence_length_type"])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data = np.asarray(inputs[0])
        lengths = np.ravel(inputs[1]).astype(np.int64)
        has_blank = len(inputs) > 2 and inputs[2] is not None
        blank = int(np.ravel(inputs[2])[0]) if has_blank else data.shape[2] - 1
        classes, counts = decode(data, lengths, blank, attrs["merge_repeated"])
        return [classes.astype(attrs["classes_index_type"]),
                counts.astype(attrs["sequence_length_type"])]


class CTCGreedyDecoder(Op):
    op = type = "CTCGreedyDecoder"
    version = "opset1"
    in_ports_count = 2
    attr_types = {"ctc_merge_repeated": "bool"}
    defaults = {"ctc_merge_repeated": True}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        data = shapes[0]
        return [None if data is None else (data[1], data[0], 1, 1)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data = np.swapaxes(np.asarray(inputs[0]), 0, 1)
        mask = np.swapaxes(np.asarray(inputs[1]), 0, 1) != 0
        lengths = np.where(mask.all(axis=1), mask.shape[1], np.argmin(mask, axis=1))
        classes, _ = decode(data, lengths, data.shape[2] - 1, attrs["ctc_merge_repeated"])
        return [classes.astype(data.dtype)[:, :, None, None]]
