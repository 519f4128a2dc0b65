"""CTCGreedyDecoderSeqLen-6: greedy CTC decoding of logits [N, T, C] with per-batch lengths.
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sequence/ctc-greedy-decoder-seq-len-6.html

Inputs: data [N, T, C], sequence_length [N] and optionally blank_index (a scalar or [1];
C - 1 without it). For each of the first sequence_length[n] steps the best class is kept unless
it is the blank or (merge_repeated) the same as the step before. Outputs: the classes [N, T]
(padded with -1) and how many each row holds [N].
"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["CTCGreedyDecoderSeqLen"]


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
        n, t, c = data.shape
        blank = int(np.ravel(inputs[2])[0]) if len(inputs) > 2 and inputs[2] is not None else c - 1
        best = np.argmax(data, axis=2)
        classes = np.full((n, t), -1, np.int64)
        counts = np.zeros(n, np.int64)
        for b in range(n):
            previous = -1
            for step in range(min(int(lengths[b]), t)):
                cls_ = int(best[b, step])
                if cls_ != blank and not (attrs["merge_repeated"] and cls_ == previous):
                    classes[b, counts[b]] = cls_
                    counts[b] += 1
                previous = cls_
        return [classes.astype(attrs["classes_index_type"]),
                counts.astype(attrs["sequence_length_type"])]
