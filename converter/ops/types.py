"""Kept for existing imports: element types and attribute kinds live in converter.ir.types."""

from converter.ir.types import (
    ATTR_KINDS,
    dtype_of,
    element_type,
    format_attr,
    parse_attr,
    precision,
)

__all__ = ["ATTR_KINDS", "dtype_of", "element_type", "format_attr", "parse_attr", "precision"]
