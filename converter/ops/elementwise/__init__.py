"""Elementwise ops: arithmetic, comparison, logical, math functions, activations."""

from converter.ops.elementwise import (
    activation,
    arithmetic,
    comparison,
    convert_like,
    logical,
    select,
    unary,
)

__all__ = ["activation", "arithmetic", "comparison", "convert_like", "logical", "select", "unary"]
