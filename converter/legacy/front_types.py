"""Ops MO's front graph held without a type, while a legacy front pass runs.

MO extracted some ops as its own front-phase ops, typed only when a later pass lowered them: a
BatchNormalization was `batchNormInference` with no type or version until its middle-phase
fusion, an ONNX Clip with its bounds as inputs a `Clamp` with none until ClampNormalizer made it
an AttributedClamp. extgen extracts them as the opset ops; a pattern written against MO
(`dict(type='Clamp')` for the attributed form only) sees MO's types while the pass runs, and the
opset's again after it (`show`, `restore`).
"""

from __future__ import annotations

from collections.abc import Callable

from converter.graph.graph import Graph, Node

__all__ = ["restore", "show"]


def _bounds_as_inputs(node: Node) -> bool:
    return any(node.is_in_port_connected(i) for i in (1, 2) if i in node.in_ports())


# op -> which of its nodes MO held untyped in the front phase
_UNTYPED: dict[str, Callable[[Node], bool]] = {
    "batchNormInference": lambda node: True,
    "Clamp": _bounds_as_inputs,
}


def show(graph: Graph) -> list[tuple[Node, str, str]]:
    """Each such node loses its type and version; returns what they were."""
    shown = []
    for node in graph.get_op_nodes():
        untyped = _UNTYPED.get(node.soft_get("op"))
        if untyped is not None and node.has_valid("type") and untyped(node):
            shown.append((node, node["type"], node.soft_get("version", None)))
            node["type"] = node["version"] = None
    return shown


def restore(graph: Graph, shown: list[tuple[Node, str, str]]) -> None:
    """The type and version again on each node shown untyped that the pass left so."""
    for node, kind, version in shown:
        if graph.has_node(node.id) and node.soft_get("type", None) is None:
            node["type"], node["version"] = kind, version
