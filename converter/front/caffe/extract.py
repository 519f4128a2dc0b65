"""Run the built-in translator of one Caffe layer and splice its result in."""

from __future__ import annotations

from converter.front.caffe import detection as _detection  # noqa: F401  (registers translators)
from converter.front.caffe import ops as _ops  # noqa: F401
from converter.front.caffe.translator import CaffeNode, find_translator
from converter.front.translator import splice
from converter.graph.graph import Node

__all__ = ["translate"]


def translate(node: Node) -> bool:
    """Replace node by the ops its translator builds; False when there is none."""
    fn = find_translator(node.soft_get("caffe_type", node.op))
    if fn is None or node.soft_get("caffe_type", None) == "Python":
        return False
    ctx = CaffeNode(node)
    outputs = list(fn(ctx))[: ctx.num_outputs]
    splice(node, outputs, ctx.name)
    return True
