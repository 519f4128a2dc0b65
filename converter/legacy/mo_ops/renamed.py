"""MO op classes of built-in ops that MO's graph named otherwise: `Mul` is a node of op 'Mul'
(type Multiply) until inference, as MO's was, so `graph.get_op_nodes(op='Mul')` in extension
code finds it; `Cast` (Convert), `AttributedClamp` (Clamp), `Softmax` (op and type 'SoftMax'),
and MO's `Clamp`, whose bounds are inputs 1 and 2 until inference makes them Clamp-1's
attributes (MO's back phase did so)."""

from __future__ import annotations

import functools

import numpy as np

from converter.back.clamp_bounds import bounds_to_attributes
from converter.graph.graph import Node
from converter.legacy.mo_ops._base import MoOp
from converter.legacy.mo_ops.mo_nodes import MO_NODES
from converter.legacy.ops import builtin_op

__all__ = [
    "AttributedClamp", "Cast", "Clamp", "Div", "Mul", "Pow", "Softmax", "Sub", "mo_builtin",
]


def _renamed(name: str, builtin: str) -> type:
    base = builtin_op(builtin)
    return type(name, (MoOp, base), {
        "__module__": __name__, "__qualname__": name,
        "__doc__": f"MO's {name}: MO's node until inference; builds {base.type}-{base.version}."})


Mul = _renamed("Mul", "Multiply")
Sub = _renamed("Sub", "Subtract")
Div = _renamed("Div", "Divide")
Pow = _renamed("Pow", "Power")
AttributedClamp = _renamed("AttributedClamp", "Clamp")
Softmax = _renamed("Softmax", "Softmax")


@functools.cache
def mo_builtin(name: str) -> type:
    """The class for MO's op class `name` of a built-in op: the built-in itself, or where MO's
    node differed (MO_NODES: its constructor defaults, say), a class building MO's node."""
    return _renamed(name, name) if name in MO_NODES else builtin_op(name)


class Cast(MoOp, builtin_op("Convert")):
    """MO's Cast: its `dst_type` is Convert's `destination_type` (and stays on the node)."""

    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        if "dst_type" not in attrs:
            return attrs
        return {**attrs, "destination_type": np.dtype(attrs["dst_type"])}


class Clamp(MoOp, builtin_op("Clamp")):
    """MO's Clamp: bounds on inputs 1 and 2 (constants), Clamp-1's `min`/`max` at inference."""

    @classmethod
    def prepare(cls, node: Node) -> None:
        super().prepare(node)
        bounds_to_attributes(node)
