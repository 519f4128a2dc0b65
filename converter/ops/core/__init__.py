"""Graph boundary and plumbing ops: Parameter, Const, Result, Convert, ShapeOf, the
variables of stateful models (ReadValue, Assign), and RandomUniform."""

from converter.ops.core import (
    assign,
    const,
    convert,
    parameter,
    random_uniform,
    read_value,
    result,
    shape_of,
)

__all__ = [
    "assign", "const", "convert", "parameter", "random_uniform", "read_value", "result",
    "shape_of",
]
