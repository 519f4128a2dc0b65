"""Select-1: elementwise choice between two tensors by a boolean mask. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/condition/select-1.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import Shape
from converter.ops.elementwise._base import broadcast_mode, cast_to
from converter.ops.op import Op
from converter.ops.shape_rules import broadcast_by

__all__ = ["Select"]


class Select(Op):
    op = type = "Select"
    version = "opset1"
    in_ports_count = 3
    attr_types = {"auto_broadcast": "str"}
    defaults = {"auto_broadcast": "numpy"}

    @classmethod
    def check_inputs(cls, attrs, shapes, types, values):
        try:
            cls._shape(attrs, shapes)
        except ValueError as err:
            return str(err)
        return super().check_inputs(attrs, shapes, types, values)

    @classmethod
    def _shape(cls, attrs, shapes) -> Shape | None:
        """else broadcast with then, the condition with that (OpenVINO's order, which pdpd's
        alignment with the first input needs)."""
        mode = broadcast_mode(attrs)
        return broadcast_by(mode, broadcast_by(mode, shapes[1], shapes[2]), shapes[0])

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [cls._shape(attrs, shapes)]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[1]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        cond, then, other = (np.asarray(x) for x in inputs[:3])
        if broadcast_mode(attrs) == "pdpd":  # numpy aligns the last dims: pad with 1s
            cond, other = (x.reshape(x.shape + (1,) * (then.ndim - x.ndim)) for x in (cond, other))
        return [cast_to(np.where(cond.astype(bool, copy=False), then, other), then.dtype)]
