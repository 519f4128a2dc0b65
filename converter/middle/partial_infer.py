"""Partial inference: shapes, types and constant values, node by node in topological order."""

from __future__ import annotations

import numpy as np

from converter.errors import ExtgenError, ShapeInferenceError
from converter.graph.graph import Graph, Node
from converter.graph.shape import as_shape
from converter.middle.declared_shapes import declared_problem

__all__ = ["infer_node", "partial_infer"]


def _describe(node: Node) -> str:
    kind = node.soft_get("type", None) or node.soft_get("op", "?")
    return f"node '{node.soft_get('name', node.id)}' ({kind})"


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
        _settle_outputs(node)
    except ExtgenError:
        raise
    except Exception as err:  # any bug in an op's inference is reported against its node
        msg = f"shape inference failed on {_describe(node)}: {type(err).__name__}: {err}"
        raise ShapeInferenceError(msg) from err
    problem = declared_problem(node)
    if problem:
        raise ShapeInferenceError(f"{_describe(node)}: {problem}")


def _settle_outputs(node: Node) -> None:
    """Legacy MO infer functions assign numpy (masked) shapes and leave data_type to MO's
    default type_infer: store tuples, and take the type from the value, the node's data_type
    or input 0."""
    for _, data in node.iter_out_data():
        shape = data.soft_get("shape", None)
        if shape is not None and not isinstance(shape, tuple):
            data["shape"] = as_shape(shape)
        if data.soft_get("data_type", None) is None:
            value = data.soft_get("value", None)
            ins = [p.data.get_data_type() for p in node.in_ports().values() if not p.disconnected()]
            own = node.soft_get("data_type", None)
            data["data_type"] = (
                np.asarray(value).dtype if value is not None
                else own if own is not None else ins[0] if ins else None
            )


def partial_infer(graph: Graph) -> None:
    nodes = graph._node
    for nid in graph.topological_ids():
        if nodes[nid].get("kind") == "op":
            infer_node(Node(graph, nid))
