"""TensorFlow op translators: functions that turn one NodeDef into opset ops.

    @tf_op("BiasAdd")
    def bias_add(n: TfNode) -> list[Port]:
        return [n.op("Add", [n.input(0), bias])]

A translator returns one output port per TF output port (None for outputs it does not build).
`n.attr("strides")` decodes the NodeDef's attribute (see converter.front.tf.attrs.attr_value).
"""

from __future__ import annotations

from typing import Any

from converter.front.tf.attrs import attr_value
from converter.front.translator import NodeContext, TranslatorRegistry
from converter.graph.graph import Node

__all__ = ["REGISTRY", "TfNode", "tf_op"]


class TfNode(NodeContext):
    """What a TF translator sees: the NodeDef's attributes, input ports and an op builder."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.pb = node.pb

    @property
    def op_type(self) -> str:
        return self.pb.op

    @property
    def num_inputs(self) -> int:
        """Data inputs (control inputs excluded)."""
        return sum(1 for t in self.pb.input if not t.startswith("^"))

    def has_attr(self, name: str) -> bool:
        return name in self.pb.attr

    def attr(self, name: str, default: Any = None) -> Any:
        """The attribute decoded (str, int, float, bool, dtype, shape, tensor, list), or default."""
        if name not in self.pb.attr:
            return default
        value = attr_value(self.pb.attr[name])
        return default if value is None else value

    def data_format(self) -> str:
        return self.attr("data_format", "NHWC")


REGISTRY = TranslatorRegistry(TfNode, ["converter.front.tf.ops"])
tf_op = REGISTRY.op
