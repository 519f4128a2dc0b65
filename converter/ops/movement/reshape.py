"""Reshape-1: a new shape for the same elements. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/shape/reshape-1.html"""

from __future__ import annotations

import math

from converter.graph.shape import DYN, Shape
from converter.ops.movement._private import as_ints, unknown_of_length
from converter.ops.op import Op
from converter.ops.shape_rules import reshape_problem

__all__ = ["Reshape", "reshape_target"]

_SHAPES_KEPT = 64  # input shapes a planned Reshape remembers its output shape for


def reshape_target(shape: Shape, target: list[int], special_zero: bool) -> Shape:
    """The output shape: 0 copies the input dim (special_zero), -1 takes what is left."""
    if target.count(-1) > 1:
        msg = f"reshape target {target} has more than one -1"
        raise ValueError(msg)
    copied = {i for i, t in enumerate(target) if t == 0 and special_zero}
    out = [shape[i] if i in copied else t for i, t in enumerate(target)]
    if -1 in target:
        # copied dims cancel out, so dynamic ones among them do not hide the -1 dim
        i = target.index(-1)
        left = [d for j, d in enumerate(shape) if j not in copied]
        rest = [d for j, d in enumerate(out) if j != i and j not in copied]
        if any(d < 0 for d in left + rest):
            out[i] = DYN
        else:
            known = math.prod(rest)
            out[i] = math.prod(left) // known if known else 0
    return tuple(out)


class Reshape(Op):
    op = type = "Reshape"
    version = "opset1"
    in_ports_count = 2
    attr_types = {"special_zero": "bool"}
    defaults = {"special_zero": False}

    @classmethod
    def check_inputs(cls, attrs, shapes, types, values):
        if values[1] is not None:
            problem = reshape_problem(shapes[0], as_ints(values[1]), attrs["special_zero"])
            if problem:
                return problem
        return super().check_inputs(attrs, shapes, types, values)

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        if values[1] is None:
            return [unknown_of_length(shapes[1])]
        if shapes[0] is None:
            target = as_ints(values[1])
            zero_copies = attrs["special_zero"] and 0 in target
            return [None if zero_copies else tuple(DYN if t == -1 else t for t in target)]
        return [reshape_target(shapes[0], as_ints(values[1]), attrs["special_zero"])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        return [x.reshape(reshape_target(x.shape, as_ints(inputs[1]), attrs["special_zero"]))]

    @classmethod
    def plan(cls, attrs, values, used):
        if values[1] is None:
            return super().plan(attrs, values, used)
        target, special, shapes = as_ints(values[1]), attrs["special_zero"], {}

        def run(inputs: list) -> list:  # evaluate, the target worked out once per input shape
            x = inputs[0]
            out = shapes.get(x.shape)
            if out is None:
                if len(shapes) > _SHAPES_KEPT:
                    shapes.clear()
                out = shapes[x.shape] = reshape_target(x.shape, target, special)
            return [x.reshape(out)]
        return run
