"""Range-4: an arithmetic sequence from start to stop (exclusive) by step. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/generation/range-4.html"""

from __future__ import annotations

import math

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["Range"]


def _length(start: float, stop: float, step: float) -> int:
    return max(math.ceil((stop - start) / step), 0)


class Range(Op):
    op = type = "Range"
    version = "opset4"
    in_ports_count = 3
    attr_types = {"output_type": "type"}
    defaults = {"output_type": np.dtype(np.float32)}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        if any(v is None for v in values):
            return [(DYN,)]
        return [(_length(*(float(v) for v in values)),)]

    @classmethod
    def infer_types(cls, attrs, types):
        return [np.dtype(attrs["output_type"])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        dtype = np.dtype(attrs["output_type"])
        start, stop, step = (np.asarray(v).item() for v in inputs)
        if dtype.kind in "iu":
            start, stop, step = (math.trunc(v) for v in (start, stop, step))
        n = _length(start, stop, step)
        return [(start + step * np.arange(n, dtype=np.float64)).astype(dtype)]
