"""MXNet op translators: functions that turn one symbol node into opset ops.

    @mxnet_op("Activation")
    def activation(n: MxnetNode) -> list[Port]:
        return [n.op("ReLU", [n.input(0)])]

A translator returns one output port per MXNet output it supports (the rest stay unconnected).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from converter.errors import ConversionError
from converter.front.mxnet.attrs import AttrDictionary, get_mxnet_layer_attrs
from converter.front.translator import NodeContext, Translator, TranslatorRegistry
from converter.graph.graph import Node

__all__ = ["MxnetNode", "find_translator", "mxnet_op", "translators"]

REGISTRY = TranslatorRegistry()


def mxnet_op(*op_types: str) -> Callable[[Translator], Translator]:
    """Register a translator for MXNet op types (aliases share one function)."""
    return REGISTRY.op(*op_types)


def find_translator(op_type: str) -> Translator | None:
    return REGISTRY.find(op_type)


def translators() -> list[str]:
    return REGISTRY.types()


class MxnetNode(NodeContext):
    """What an MXNet translator sees: `attrs` (typed getters), `attr()` (the raw string), its
    inputs, and the op builder."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.symbol_dict: dict[str, Any] = node.symbol_dict
        self.attrs: AttrDictionary = get_mxnet_layer_attrs(self.symbol_dict)
        self.op_type: str = self.symbol_dict["op"]

    def attr(self, name: str, default: Any = None) -> Any:
        """The attribute's raw string, or default."""
        return self.attrs.str(name, default)

    def fail(self, what: str) -> ConversionError:
        """An error naming this node, to raise."""
        return ConversionError(f"{self.op_type} node '{self.name}': {what}")
