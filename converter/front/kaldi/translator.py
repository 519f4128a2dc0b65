"""Kaldi component translators: functions that turn one component into opset ops.

    @kaldi_op("SigmoidComponent", "Sigmoid")
    def sigmoid(n: KaldiNode) -> list[Port]:
        return [n.op("Sigmoid", [n.input(0)])]

`n.comp` is the parsed Component: `n.comp.array("<LinearParams>")`, `n.comp.int("<Dim>")`, ...
"""

from __future__ import annotations

from converter.front.kaldi.component import Component
from converter.front.translator import NodeContext, TranslatorRegistry
from converter.graph.graph import Node

__all__ = ["REGISTRY", "KaldiNode", "kaldi_op"]


class KaldiNode(NodeContext):
    """What a Kaldi translator sees: the component, its input, the op builder."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.comp: Component = node.component

    @classmethod
    def extractor_keys(cls, node: Node) -> list[str]:
        """The component type, then MO's key for it (the type in lower case)."""
        return [node.op, node.op.lower()]


REGISTRY = TranslatorRegistry(
    KaldiNode, ["converter.front.kaldi.affine", "converter.front.kaldi.nonlinear",
                "converter.front.kaldi.lstm", "converter.front.kaldi.conv"])
kaldi_op = REGISTRY.op
