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

from collections.abc import Callable
from typing import Any

from onnx import helper

from converter.front.translator import NodeContext, Translator, TranslatorRegistry
from converter.graph.graph import Node
from converter.graph.port import Port

__all__ = ["OnnxNode", "Translator", "find_translator", "onnx_op", "translators"]

REGISTRY = TranslatorRegistry()


def onnx_op(*op_types: str, since: int = 1) -> Callable[[Translator], Translator]:
    """Register a translator for ONNX op types (`domain::Type` for custom domains)."""
    return REGISTRY.op(*op_types, since=since)


def find_translator(op_type: str, opset: int) -> Translator | None:
    return REGISTRY.find(op_type, opset)


def translators() -> list[str]:
    return REGISTRY.types()


class OnnxNode(NodeContext):
    """What an ONNX translator sees: the node's attributes, its input ports and an op builder."""

    def __init__(self, node: Node, opset: int) -> None:
        super().__init__(node)
        self.pb = node.pb
        self.opset = opset
        self._attrs = {a.name: a for a in self.pb.attribute}

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
            from onnx import numpy_helper

            return numpy_helper.to_array(value)
        if isinstance(value, list) and value and isinstance(value[0], bytes):
            return [v.decode("utf-8") for v in value]
        return value

    def input(self, i: int) -> Port | None:
        """Source port of ONNX input i, None when omitted."""
        if i >= len(self.pb.input) or not self.pb.input[i]:
            return None
        return self.node.in_port(i).get_source()
