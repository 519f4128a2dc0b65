"""MO's ONNX attribute helper for extractors: onnx_attr(node, name, field, default, dst_type)."""

from __future__ import annotations

from typing import Any

from converter.errors import ModelFormatError
from converter.graph.graph import Node

__all__ = ["onnx_attr", "onnx_node_has_attr"]


def onnx_attr(node: Node, name: str, field: str, default: Any = None, dst_type: Any = None) -> Any:
    """Value of attribute `name` (its `field`: 'i', 'f', 's', 'ints', 'floats', 't', ...)."""
    found = [a for a in node.pb.attribute if a.name == name]
    if not found:
        return default
    if len(found) > 1:
        msg = f"attribute '{name}' appears {len(found)} times on node '{node.soft_get('name')}'"
        raise ModelFormatError(msg)
    value = getattr(found[0], field)
    if field in ("ints", "floats", "strings"):
        value = list(value)
    return dst_type(value) if dst_type is not None else value


def onnx_node_has_attr(node: Node, name: str) -> bool:
    return any(a.name == name for a in node.pb.attribute)
