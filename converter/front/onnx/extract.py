"""Run the built-in ONNX translator of one framework node and splice its result in."""

from __future__ import annotations

from converter.front.onnx import ops as _ops  # noqa: F401  (registers the translators)
from converter.front.onnx.translator import OnnxNode, find_translator
from converter.front.translator import splice
from converter.graph.graph import Node

__all__ = ["translate"]


def translate(node: Node) -> bool:
    """Replace node by the ops its translator builds; False when there is no translator."""
    domain = node.pb.domain or "ai.onnx"
    opset = node.graph.graph["opsets"].get(domain, 1)
    fn = find_translator(node.op, opset)
    if fn is None:
        return False
    ctx = OnnxNode(node, opset)
    outputs = list(fn(ctx))[: ctx.num_outputs]
    splice(node, outputs, ctx.name)
    return True
