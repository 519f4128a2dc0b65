"""MXNet op translators: functions that turn one symbol node into opset ops.

    @mxnet_op("Activation")
    def activation(n: MxnetNode) -> list[Port]:
        return [n.op("ReLU", [n.input(0)])]

A translator returns one output port per MXNet output it supports (the rest stay unconnected).
"""

from __future__ import annotations

from typing import Any

from converter.front.mxnet.attrs import AttrDictionary, get_mxnet_layer_attrs
from converter.front.translator import NodeContext, TranslatorRegistry
from converter.graph.graph import Node

__all__ = ["MxnetNode", "REGISTRY", "mxnet_op"]


class MxnetNode(NodeContext):
    """What an MXNet translator sees: `attrs` (typed getters), `attr()` (the raw string), its
    inputs, and the op builder."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.symbol_dict: dict[str, Any] = node.symbol_dict
        self.attrs: AttrDictionary = get_mxnet_layer_attrs(self.symbol_dict)

    @property
    def op_type(self) -> str:
        return self.symbol_dict["op"]

    def attr(self, name: str, default: Any = None) -> Any:
        """The attribute's raw string, or default."""
        return self.attrs.str(name, default)

    @classmethod
    def key(cls, node: Node) -> tuple[str | None, int]:
        """Custom ops have no built-in translation (their extractors do)."""
        return (None if node.symbol_dict.get("op") == "Custom" else node.op), 1 << 30

    @classmethod
    def extractor_keys(cls, node: Node) -> list[str]:
        """A Custom op's op_type, then "Custom" (an MO-style extractor for every Custom op)."""
        custom = ["Custom"] if node.symbol_dict.get("op") == "Custom" else []
        return [node.op, *custom]


REGISTRY = TranslatorRegistry(MxnetNode, ["converter.front.mxnet.ops"])
mxnet_op = REGISTRY.op
