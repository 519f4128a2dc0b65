"""Run the built-in TensorFlow translator of one framework node and splice its result in."""

from __future__ import annotations

from converter.front.tf import ops as _ops  # noqa: F401  (registers the translators)
from converter.front.tf.translator import TfNode, find_translator
from converter.front.translator import splice
from converter.graph.graph import Node

__all__ = ["translate"]


def translate(node: Node) -> bool:
    """Replace node by the ops its translator builds; False when there is no translator."""
    fn = find_translator(node.op)
    if fn is None:
        return False
    ctx = TfNode(node)
    outputs = list(fn(ctx))
    splice(node, outputs, ctx.name)
    return True
