"""MO's op names for the opset ops MO's graph named otherwise: a Multiply node is op 'Mul' (its
type stays Multiply), Subtract 'Sub', Divide 'Div', Power 'Pow', Convert 'Cast',
BatchNormInference 'batchNormInference', Softmax 'SoftMax' (typed SoftMax), the recurrent
sequences 'LSTM', 'GRU' and 'RNN'. The graph holds them
from extraction to the end of the front phase, as MO's did, so extension code that looks for
MO's names (`node.soft_get('op') == 'Mul'`) finds the nodes; inference starts from the opset
names, which extgen's middle and back passes key on (MO kept its names to the end). A front
pattern's `op` matches either name. A translator may name MO's op for its framework's op where
MO's graph had the opset op's structure under another name (`mo_op`: ONNX Conv's Convolution
is op 'Conv'); legacy passes see that name too."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Graph

__all__ = ["MO_NAMES", "aliased", "from_mo_names", "mo_name", "op_aliases", "opset_name",
           "to_mo_names"]

MO_NAMES = {"Multiply": "Mul", "Subtract": "Sub", "Divide": "Div", "Power": "Pow",
            "Convert": "Cast", "BatchNormInference": "batchNormInference", "Softmax": "SoftMax",
            "LSTMSequence": "LSTM", "GRUSequence": "GRU", "RNNSequence": "RNN"}
_OPSET = {mo: ours for ours, mo in MO_NAMES.items()}
_TYPES = {"Softmax": "SoftMax"}  # the graph type of an op whose class's op name is not it
_OWN_OP = "_opset_op"  # a node shown under its `mo_op`: its own op name


def _typed(op: str | None, kind: str | None) -> bool:
    """Whether kind is the type of the opset op named op."""
    return op is not None and kind == _TYPES.get(op, op)


def mo_name(attrs: dict) -> None:
    """An opset node's attributes (graph._node's dict) take MO's op name if MO named the op
    otherwise (or MO's name for its framework op, that a translator set as `mo_op`); a Convert
    also MO's `dst_type` (a numpy type) for its destination_type."""
    op = attrs.get("op")
    mo_op = attrs.get("mo_op")
    if mo_op is not None and op != mo_op and op is not None:
        attrs[_OWN_OP], attrs["op"] = op, mo_op
        return
    if op in MO_NAMES and _typed(op, attrs.get("type")):
        attrs["op"] = MO_NAMES[op]
        if op == "Convert" and attrs.get("destination_type") is not None:
            attrs["dst_type"] = np.dtype(attrs["destination_type"]).type


def opset_name(attrs: dict) -> None:
    """A node's attributes get back the opset name; a Cast's `dst_type`, which MO's passes may
    have changed, is its destination_type again."""
    op = attrs.get("op")
    if _OWN_OP in attrs:
        own = attrs.pop(_OWN_OP)
        if op == attrs.get("mo_op"):
            attrs["op"] = own
        return
    if op in _OPSET and _typed(_OPSET[op], attrs.get("type")):
        attrs["op"] = _OPSET[op]
        if op == "Cast" and attrs.get("dst_type") is not None:
            attrs["destination_type"] = np.dtype(attrs.pop("dst_type"))


def to_mo_names(graph: Graph) -> None:
    """Each opset node of these ops takes MO's op name (after extraction)."""
    for attrs in graph._node.values():
        if attrs.get("kind") == "op":
            mo_name(attrs)


def from_mo_names(graph: Graph) -> None:
    """Each node of these ops gets back the opset name (before inference)."""
    for attrs in graph._node.values():
        if attrs.get("kind") == "op":
            opset_name(attrs)


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
