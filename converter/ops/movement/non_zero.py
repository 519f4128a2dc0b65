"""NonZero-3: the indices of non-zero elements, one row per axis. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/condition/nonzero-3.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["NonZero"]


class NonZero(Op):
    op = type = "NonZero"
    version = "opset3"
    in_ports_count = 1
    attr_types = {"output_type": "type"}
    defaults = {"output_type": np.dtype(np.int64)}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [None if shapes[0] is None else (len(shapes[0]), DYN)]

    @classmethod
    def infer_types(cls, attrs, types):
        return [np.dtype(attrs["output_type"])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, dtype = inputs[0], attrs["output_type"]
        if x.ndim == 0:
            return [np.zeros((0, int(bool(x))), dtype=dtype)]
        return [np.array(np.nonzero(x), dtype=dtype)]
