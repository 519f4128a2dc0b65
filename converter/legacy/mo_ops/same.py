"""MO op classes of the same opset op as a built-in: MO's constructor, the built-in's node.

Most take the same attributes; the `Attributed*` forms carry as attributes what the opset op
takes as inputs (they get constant inputs at inference), and MO's Slice has ONNX's input order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Node
from converter.legacy.mo_ops._base import MoOp, const_input, move_inputs
from converter.legacy.ops import builtin_op

__all__ = ["ATTRIBUTED", "SAME", "mo_class"]

# MO class name -> built-in op (the same name where not listed)
SAME: dict[str, str] = {
    name: name for name in (
        "ConvertLike", "DetectionOutput", "ReduceLogicalAnd", "ReduceLogicalOr", "Broadcast",
        "Bucketize", "CumSum", "DFT", "IDFT", "RDFT", "IRDFT", "Einsum", "BitwiseAnd",
        "BitwiseOr", "BitwiseXor", "BitwiseNot", "Eye", "GatherElements", "GatherND",
        "GroupNormalization", "HardSigmoid", "LRN", "MVN", "NonMaxSuppression", "NonZero",
        "OneHot", "Pad", "PReLU", "Range", "ReverseSequence", "Roll", "Select",
        "ShuffleChannels", "SpaceToDepth", "VariadicSplit", "Split", "StridedSlice", "Tile",
        "TopK",
    )
}
SAME.update(DepthToSpaceOp="DepthToSpace", GeLUOP="Gelu", NormalizeL2Op="NormalizeL2",
            PriorBoxOp="PriorBox")

# MO class -> (built-in op, {input port: the attribute that feeds it})
ATTRIBUTED: dict[str, tuple[str, dict[int, str]]] = {
    "AttributedSplit": ("Split", {1: "axis"}),
    "AttributedVariadicSplit": ("VariadicSplit", {1: "axis", 2: "split_lengths"}),
    "AttributedTile": ("Tile", {1: "repeats"}),
    "AttributedGather": ("Gather", {2: "axis"}),
    "AttributedPad": ("Pad", {1: "pads_begin", 2: "pads_end", 3: "fill_value"}),
    "AttributedRoll": ("Roll", {1: "shift", 2: "axes"}),
}


def _attr_inputs(ports: dict[int, str]) -> Any:
    @classmethod
    def prepare(cls, node: Node) -> None:
        for port, attr in ports.items():
            if node.has_valid(attr) and (port not in node.in_nodes()):
                value = np.asarray(node[attr])
                const_input(node, port, value, dtype=value.dtype)
    return prepare


def mo_class(name: str) -> type:
    """The class for MO op class `name` (one of SAME or ATTRIBUTED)."""
    builtin, ports = ATTRIBUTED.get(name, (SAME.get(name), {}))
    base = builtin_op(builtin)
    attrs: dict[str, Any] = {"__module__": __name__, "__qualname__": name,
                             "__doc__": f"MO's {name}: builds {base.type}-{base.version}."}
    if ports:
        attrs["prepare"] = _attr_inputs(ports)
        attrs["in_ports_count"] = max(ports) + 1
    return type(name, (MoOp, base), attrs)


class Slice(MoOp, builtin_op("Slice")):
    """MO's Slice: inputs (data, starts, ends[, axes[, steps]]) as ONNX has them; Slice-8
    takes (data, start, stop, step[, axes])."""

    in_ports_count = 5

    @classmethod
    def prepare(cls, node: Node) -> None:
        if node.soft_get("onnx_order", True):
            starts = node.in_port(1).data.get_value()
            connected = node.in_nodes()
            move_inputs(node, [0, 1, 2] + [p if p in connected else None for p in (4, 3)])
            if 4 not in connected:
                const_input(node, 3, np.ones(np.shape(starts), np.int64))
            node["onnx_order"] = False
