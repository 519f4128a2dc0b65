"""Select-1: elementwise choice between two tensors by a boolean mask. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/condition/select-1.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import broadcast
from converter.ops.elementwise._base import cast_to
from converter.ops.op import Op

__all__ = ["Select"]


class Select(Op):
    op = type = "Select"
    version = "opset1"
    in_ports_count = 3
    attr_types = {"auto_broadcast": "str"}
    defaults = {"auto_broadcast": "numpy"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [broadcast(*shapes[:3])]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[1]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        cond, then, other = (np.asarray(x) for x in inputs[:3])
        return [cast_to(np.where(cond.astype(bool, copy=False), then, other), then.dtype)]
