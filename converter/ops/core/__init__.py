"""Graph boundary and plumbing ops: Parameter, Const, Result, Convert, ShapeOf, and the
variables of stateful models (ReadValue, Assign)."""

from converter.ops.core import assign, const, convert, parameter, read_value, result, shape_of

__all__ = [
    "assign", "const", "convert", "parameter", "read_value", "result", "shape_of",
]
