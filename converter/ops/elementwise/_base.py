"""Shared bases for elementwise ops: unary (same shape and type) and binary (broadcasting)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from converter.graph.shape import broadcast
from converter.ops.op import Op

__all__ = ["BinaryOp", "UnaryOp"]


class UnaryOp(Op):
    """y = fn(x), same shape and type. Subclasses set `fn`."""

    in_ports_count = 1
    fn: ClassVar = None

    @classmethod
    def evaluate(cls, attrs, inputs):
        return [cls.fn(inputs[0])]


class BinaryOp(Op):
    """z = fn(x, y) with numpy broadcasting (auto_broadcast='numpy'). Subclasses set `fn`."""

    in_ports_count = 2
    attr_types = {"auto_broadcast": "str"}
    defaults = {"auto_broadcast": "numpy"}
    fn: ClassVar = None
    result_type: ClassVar[np.dtype | None] = None  # e.g. boolean for comparisons

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [broadcast(shapes[0], shapes[1])]

    @classmethod
    def infer_types(cls, attrs, types):
        return [cls.result_type if cls.result_type is not None else types[0]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        return [cls.fn(inputs[0], inputs[1])]
