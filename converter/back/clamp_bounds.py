"""A Clamp with its bounds as inputs 1 and 2, as MO's graph held ONNX Clip-11 through the front
and middle phases, so passes written against MO (its HSwishWithClamp) match it.
ClampBoundsToAttributes makes it Clamp-1, whose bounds are attributes, in the back phase, as
MO's ClampNormalizer did; a legacy MO Clamp does the same at its inference."""

from __future__ import annotations

import numpy as np

from converter.back.replacement import BackReplacementPattern
from converter.errors import ShapeInferenceError
from converter.graph.graph import Graph, Node

__all__ = ["ClampBoundsToAttributes", "bounds_to_attributes", "clamps_to_attributes"]

_FLOAT32 = np.finfo(np.float32)
_BOUNDS = ((1, "min", float(_FLOAT32.min)), (2, "max", float(_FLOAT32.max)))


def _constant(node: Node, port: int) -> np.ndarray | None:
    """Input port's value: its tensor's (middle stage), or a Const source's (front stage)."""
    value = node.in_port(port).data.get_value()
    source = node.in_port(port).get_source().node
    if value is None and source.soft_get("op") == "Const":
        value = source.soft_get("value", None)
    return value


def bounds_to_attributes(node: Node) -> None:
    """Constant bounds on inputs 1 and 2 become `min` and `max` (a missing one: float32's
    extreme, as MO had it), and those inputs go."""
    for port, attr, extreme in _BOUNDS:
        if port in node.in_ports() and not node.in_port(port).disconnected():
            value = _constant(node, port)
            if value is None:
                msg = (f"Clamp '{node.soft_get('name', node.id)}': input {port} ({attr}) must "
                       "be a constant for Clamp-1")
                raise ShapeInferenceError(msg)
            node[attr] = float(np.asarray(value))
            node.in_port(port).disconnect()
        elif not node.has_valid(attr):
            node[attr] = extreme
        if port in node.in_ports():
            node.delete_input_port(port)
    node["in_ports_count"] = 1


class ClampBoundsToAttributes(BackReplacementPattern):
    """Every Clamp still fed its bounds becomes Clamp-1."""

    enabled = True

    def find_and_replace_pattern(self, graph: Graph) -> None:
        clamps_to_attributes(graph)


def clamps_to_attributes(graph: Graph) -> None:
    """Each Clamp of graph fed its bounds becomes Clamp-1 (a sub-graph body, which no pass
    sees, at once)."""
    for node in graph.get_op_nodes(op="Clamp"):
        if len(node.in_ports()) > 1:
            bounds_to_attributes(node)
