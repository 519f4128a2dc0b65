"""ReverseSequence-1: reverses the first seq_lengths[b] items of each batch along seq_axis. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/reverse-sequence-1.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import normalize_axis
from converter.ops.op import Op

__all__ = ["ReverseSequence"]


class ReverseSequence(Op):
    op = type = "ReverseSequence"
    version = "opset1"
    in_ports_count = 2
    attr_types = {"batch_axis": "int", "seq_axis": "int"}
    defaults = {"batch_axis": 0, "seq_axis": 1}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, lengths = inputs[0], np.asarray(inputs[1], dtype=np.int64)
        b = normalize_axis(attrs["batch_axis"], x.ndim)
        s = normalize_axis(attrs["seq_axis"], x.ndim)
        moved = np.moveaxis(x, (b, s), (0, 1))
        t = np.arange(moved.shape[1])[None, :]
        n = np.clip(lengths, 0, moved.shape[1])[:, None]
        src = np.where(t < n, n - 1 - t, t)
        out = moved[np.arange(moved.shape[0])[:, None], src]
        return [np.ascontiguousarray(np.moveaxis(out, (0, 1), (b, s)))]
