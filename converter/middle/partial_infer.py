"""Partial inference: shapes, types and constant values, node by node in topological order."""

from __future__ import annotations

from converter.graph.graph import Graph, Node
from extgen.errors import ExtgenError, ShapeInferenceError

__all__ = ["infer_node", "partial_infer"]


def _describe(node: Node) -> str:
    return f"node '{node.soft_get('name', node.id)}' ({node.soft_get('type', None) or node.soft_get('op', '?')})"


def infer_node(node: Node) -> None:
    """Run one node's infer, turning any failure into a ShapeInferenceError naming it."""
    if not node.has_valid("infer"):
        msg = (
            f"{_describe(node)} has no infer function; implement 'infer' in its Op class "
            "(the generated ops/<op>.py has a place for it)"
        )
        raise ShapeInferenceError(msg)
    try:
        node.infer(node)
    except ExtgenError:
        raise
    except Exception as err:  # any bug in an op's inference is reported against its node
        msg = f"shape inference failed on {_describe(node)}: {type(err).__name__}: {err}"
        raise ShapeInferenceError(msg) from err


def partial_infer(graph: Graph) -> None:
    for node in graph.topological_order():
        if node.kind == "op":
            infer_node(node)
