"""MO's op names for the opset ops MO's graph named otherwise: a Multiply node is op 'Mul' (its
type stays Multiply), Subtract 'Sub', Divide 'Div', Power 'Pow', Convert 'Cast',
BatchNormInference 'batchNormInference'. The graph holds them from extraction to the end of the
front phase, as MO's did, so extension code that looks for MO's names (`node.soft_get('op') ==
'Mul'`) finds the nodes; inference starts from the opset names, which extgen's middle and back
passes key on (MO kept its names to the end). A front pattern's `op` matches either name."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Graph

__all__ = ["MO_NAMES", "aliased", "from_mo_names", "op_aliases", "to_mo_names"]

MO_NAMES = {"Multiply": "Mul", "Subtract": "Sub", "Divide": "Div", "Power": "Pow",
            "Convert": "Cast", "BatchNormInference": "batchNormInference"}
_OPSET = {mo: ours for ours, mo in MO_NAMES.items()}


def to_mo_names(graph: Graph) -> None:
    """Each opset node of these ops takes MO's op name (after extraction); a Cast also MO's
    `dst_type` (a numpy type) for Convert's destination_type."""
    for node in graph.get_op_nodes():
        kind = node.soft_get("type", None)
        if kind in MO_NAMES and node.soft_get("op") == kind:
            node["op"] = MO_NAMES[kind]
            if kind == "Convert" and node.has_valid("destination_type"):
                node["dst_type"] = np.dtype(node["destination_type"]).type


def from_mo_names(graph: Graph) -> None:
    """Each node of these ops gets back the opset name (before inference); a Cast's
    `dst_type`, which MO's passes may have changed, is its destination_type again."""
    for node in graph.get_op_nodes():
        op = node.soft_get("op")
        if op in _OPSET and node.soft_get("type", None) == _OPSET[op]:
            node["op"] = _OPSET[op]
            if op == "Cast" and node.has_valid("dst_type"):
                node["destination_type"] = np.dtype(node["dst_type"])
                del node["dst_type"]


def op_aliases(op: str) -> set[str]:
    """op and the other name of the same op."""
    return {op} | {name for name in (MO_NAMES.get(op), _OPSET.get(op)) if name}


def aliased(pattern: dict[str, Any]) -> dict[str, Any]:
    """A pattern dict whose string `op`s match either name."""
    nodes = []
    for alias, attrs in pattern.get("nodes", []):
        op = attrs.get("op")
        if isinstance(op, str) and len(op_aliases(op)) > 1:
            attrs = {**attrs, "op": op_aliases(op).__contains__}
        nodes.append((alias, attrs))
    return {**pattern, "nodes": nodes}
