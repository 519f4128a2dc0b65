"""Casts to the element types the IR carries in another type (converter.ir.carried), in
standard ops: a float8 `fnuz` type's values rounded to its grid in f32, int2 wrapped in i8."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from converter.front.onnx.translator import OnnxNode
from converter.graph.port import Port
from converter.ir.carried import carrier

__all__ = ["cast_to_carried"]

F32 = np.dtype(np.float32)


def cast_to_carried(n: OnnxNode, x: Port, to: np.dtype, saturate: bool) -> Port:
    """x cast to carried type `to`, as its carrier holds the result."""
    if to == np.dtype(ml_dtypes.int2):
        return _wrap_to_int2(n, x)
    return _round_to_float_grid(n, x, to, saturate)


def _wrap_to_int2(n: OnnxNode, x: Port) -> Port:
    """Integer values wrapped to [-2, 1] as two's complement in two bits (3 -> -1, 2 -> -2)."""
    i8 = carrier(ml_dtypes.int2)
    whole = n.op("Convert", [x], destination_type=i8)
    return n.op("Subtract", [n.op("FloorMod", [n.op("Add", [whole, i8.type(2)]), i8.type(4)]),
                             i8.type(2)])


def _round_to_float_grid(n: OnnxNode, x: Port, to: np.dtype, saturate: bool) -> Port:
    """x rounded half to even to float type `to`'s values: the spacing of its binade (powers of
    two bucketize |x| exactly; below the smallest normal, the subnormal spacing), then beyond
    its largest value the largest (saturate) or NaN. NaN stays NaN; -0 stays -0, which the
    carried type reads as 0."""
    info = ml_dtypes.finfo(to)
    exponents = np.arange(int(info.minexp), int(info.maxexp))
    boundaries = np.exp2(exponents).astype(F32)
    spacing = np.exp2(np.concatenate([[info.minexp], exponents]) - info.nmant).astype(F32)
    x = n.op("Convert", [x], destination_type=F32)
    binade = n.op("Bucketize", [n.op("Abs", [x]), boundaries], with_right_bound=False)
    step = n.op("Gather", [spacing, binade, np.int64(0)])
    rounded = n.op("Multiply", [n.op("Round", [n.op("Divide", [x, step])], mode="half_to_even"),
                                step])
    top = F32.type(info.max)
    beyond = n.op("Greater", [n.op("Abs", [rounded]), top])
    limit = n.op("Multiply", [n.op("Sign", [x]), top]) if saturate else F32.type(np.nan)
    return n.op("Select", [beyond, limit, rounded])
