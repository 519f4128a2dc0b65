"""Ops MO's graph held under other types than the opset's, while a legacy pass runs.

MO extracted some ops as its own front-phase ops, typed only when a later pass lowered them: a
BatchNormalization was `batchNormInference` with no type or version until its middle-phase
fusion, an ONNX Clip with its bounds as inputs a `Clamp` with none until ClampNormalizer made it
an AttributedClamp. Its pooling ops were type `Pooling` (with a `pool_method`) until its back
passes MaxPool and AvgPool. extgen extracts them as the opset ops; a pattern written against MO
(`dict(type='Clamp')` for the attributed form only, `dict(type='Pooling', pool_method='max')`)
sees MO's types while the pass runs, and the opset's again after it (`show`, `restore`). MO's
recurrent layers were all type `RNNSequence` until its back phase (converter.legacy.mo_rnn).
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
# type -> MO's pool_method of its Pooling (the front and middle phases)
_POOLING = {"MaxPool": "max", "AvgPool": "avg"}
# MO's one type for its recurrent layers until its back pass RNNSequenceTypeRename
_RECURRENT = ("LSTMSequence", "GRUSequence")


def show(graph: Graph, middle: bool = False) -> list[tuple[Node, str, str]]:
    """Each such node takes MO's type (none, or Pooling); returns what they were. In the middle
    phase only the pooling ops."""
    shown = []
    for node in graph.get_op_nodes():
        kind = node.soft_get("type", None)
        untyped = None if middle else _UNTYPED.get(node.soft_get("op"))
        if kind in _POOLING:
            shown.append((node, kind, node.soft_get("version", None)))
            node["type"], node["pool_method"] = "Pooling", _POOLING[kind]
        elif kind in _RECURRENT:
            shown.append((node, kind, node.soft_get("version", None)))
            node["type"] = "RNNSequence"
        elif untyped is not None and kind is not None and untyped(node):
            shown.append((node, kind, node.soft_get("version", None)))
            node["type"] = node["version"] = None
    return shown


def restore(graph: Graph, shown: list[tuple[Node, str, str]]) -> None:
    """The type and version again on each node shown in MO's type that the pass left so."""
    for node, kind, version in shown:
        if not graph.has_node(node.id):
            continue
        if node.soft_get("type", None) is None:
            node["type"], node["version"] = kind, version
        elif node.soft_get("type") == "Pooling":
            node["type"] = kind
            node.attrs().pop("pool_method", None)
        elif node.soft_get("type") == "RNNSequence" and kind in _RECURRENT:
            node["type"] = kind
