"""ONNX op translators: functions that turn one ONNX node into opset ops.

    @onnx_op("Gemm")
    def gemm(n: OnnxNode) -> list[Port]:
        y = n.op("MatMul", [n.input(0), n.input(1)], transpose_a=bool(n.attr("transA", 0)))
        ...
        return [y]

A translator returns one output port per ONNX output. The registry keeps several versions
per op type (`since=` opset); the newest one not newer than the model's opset is used.
"""

from __future__ import annotations

from typing import Any

from onnx import defs, helper

from converter.front.translator import NodeContext, Translator, TranslatorRegistry
from converter.graph.graph import Node
from converter.graph.port import Port

__all__ = ["REGISTRY", "OnnxNode", "Translator", "onnx_op"]


def _opset(node: Node) -> int:
    """The model's opset of node's domain."""
    return node.graph.graph["opsets"].get(node.pb.domain or "ai.onnx", 1)


class OnnxNode(NodeContext):
    """What an ONNX translator sees: the node's attributes, its input ports and an op builder."""

    def __init__(self, node: Node, opset: int | None = None) -> None:
        super().__init__(node)
        self.pb = node.pb
        self.opset = _opset(node) if opset is None else opset
        self._attrs = {a.name: a for a in self.pb.attribute}

    @classmethod
    def key(cls, node: Node) -> tuple[str | None, int]:
        return node.op, _opset(node)

    @classmethod
    def extractor_keys(cls, node: Node) -> list[str]:
        """`domain::Type`, then `Type` alone (MO keyed custom-domain ops by type)."""
        return [node.op, *node.op.split("::", 1)[1:]]

    @classmethod
    def standard_op(cls, node: Node) -> str | None:
        """'ONNX op LSTM (opset 14)' for an op of the ONNX standard (ai.onnx, ai.onnx.ml)."""
        domain = "" if node.pb.domain == "ai.onnx" else node.pb.domain
        if domain not in ("", "ai.onnx.ml") or not defs.has(node.pb.op_type, domain):
            return None
        name = f"{domain}::{node.pb.op_type}" if domain else node.pb.op_type
        return f"ONNX op {name} (opset {_opset(node)})"

    # -- reading the ONNX node ------------------------------------------------------------------
    @property
    def op_type(self) -> str:
        return self.pb.op_type

    @property
    def num_inputs(self) -> int:
        """Number of ONNX inputs, trailing omitted ones excluded."""
        names = list(self.pb.input)
        while names and not names[-1]:
            names.pop()
        return len(names)

    @property
    def num_outputs(self) -> int:
        return len(self.pb.output)

    def has_attr(self, name: str) -> bool:
        return name in self._attrs

    def attr(self, name: str, default: Any = None) -> Any:
        """The attribute's value (bytes decoded to str, tensors to numpy), or default."""
        a = self._attrs.get(name)
        if a is None:
            return default
        value = helper.get_attribute_value(a)
        if isinstance(value, bytes):
            return value.decode("utf-8")
        if a.type == a.TENSOR:
            from converter.front.onnx.loader import tensor_value

            return tensor_value(value)
        if isinstance(value, list) and value and isinstance(value[0], bytes):
            return [v.decode("utf-8") for v in value]
        return value

    def input(self, i: int) -> Port | None:
        """Source port of ONNX input i, None when omitted."""
        if i >= len(self.pb.input) or not self.pb.input[i]:
            return None
        return self.node.in_port(i).get_source()


# `domain::Type` for custom domains; since= the opset a version applies from
REGISTRY = TranslatorRegistry(OnnxNode, ["converter.front.onnx.ops"])
onnx_op = REGISTRY.op
