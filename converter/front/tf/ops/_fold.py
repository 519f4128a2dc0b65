"""Values that translators need as constants (an axis, a size) but that TF computes from
constants in the graph (tf.signal's linspace computes its concat axis): the opset ops already
translated upstream are evaluated here, through each op's own evaluate."""

from __future__ import annotations

import numpy as np

from converter.front.tf.translator import TfNode
from converter.graph.port import Port
from converter.ops.op import Op

__all__ = ["constant_input"]

_MAX_DEPTH = 24  # ops followed upstream; an axis is a few ops from its constants


def _value(port: Port, depth: int, seen: dict) -> np.ndarray | None:
    node = port.node
    if node.soft_get("op") == "Const":
        return np.asarray(node.value)
    if node.id in seen:  # each node evaluated once, however many paths reach it
        outs = seen[node.id]
        return None if outs is None else outs[port.idx]
    cls = Op.builtin_ops.get(node.soft_get("op"))
    seen[node.id] = None
    if depth == 0 or node.has("pb") or cls is None or not cls.has_evaluate():
        return None  # not translated yet, or no opset op with an evaluate
    values = []
    for _, inp in sorted(node.in_ports().items()):
        if inp.disconnected():
            continue
        value = _value(inp.get_source(), depth - 1, seen)
        if value is None:
            return None
        values.append(value)
    seen[node.id] = [np.asarray(v) for v in cls.compute(cls.ir_attrs(node), values)]
    return seen[node.id][port.idx]


def constant_input(n: TfNode, i: int) -> np.ndarray | None:
    """Input i's value when it is a Const or computed from Consts only, else None."""
    src = n.input(i)
    return None if src is None else _value(src, _MAX_DEPTH, {})
