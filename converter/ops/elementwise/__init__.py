"""Elementwise ops: arithmetic, comparison, logical, math functions, activations."""

from converter.ops.elementwise import activation, arithmetic

__all__ = ["activation", "arithmetic"]
