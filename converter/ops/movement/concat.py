"""Concat-1: joins tensors along an axis. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/concat-1.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN, normalize_axis
from converter.ops.movement._private import merge_dim
from converter.ops.op import Op
from converter.ops.shape_rules import concat_problem

__all__ = ["Concat"]


class Concat(Op):
    op = type = "Concat"
    version = "opset1"
    in_ports_count = None
    attr_types = {"axis": "int"}
    defaults = {"axis": 0}

    @classmethod
    def check_inputs(cls, attrs, shapes, types, values):
        problem = concat_problem(shapes, attrs["axis"])
        return problem or super().check_inputs(attrs, shapes, types, values)

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        known = [s for s in shapes if s is not None]
        if not known:
            return [None]
        rank = len(known[0])
        axis = normalize_axis(attrs["axis"], rank)
        out = list(known[0])
        for s in known[1:]:
            out = [merge_dim(a, b) for a, b in zip(out, s, strict=True)]
        sizes = [s[axis] if s is not None else DYN for s in shapes]
        out[axis] = DYN if any(d < 0 for d in sizes) else sum(sizes)
        return [tuple(out)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        axis = normalize_axis(attrs["axis"], inputs[0].ndim)
        return [np.concatenate(inputs, axis=axis)]
