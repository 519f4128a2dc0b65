"""Run the built-in ONNX translator of one framework node and splice its result in."""

from __future__ import annotations

from converter.front.onnx import ops as _ops  # noqa: F401  (registers the translators)
from converter.front.onnx.translator import OnnxNode, find_translator
from converter.graph.graph import Node

__all__ = ["translate"]


def translate(node: Node) -> bool:
    """Replace node by the ops its translator builds; False when there is no translator."""
    graph = node.graph
    domain = node.pb.domain or "ai.onnx"
    opset = graph.graph["opsets"].get(domain, 1)
    fn = find_translator(node.op, opset)
    if fn is None:
        return False
    ctx = OnnxNode(node, opset)
    outputs = list(fn(ctx))
    prefix = ctx.name + "/"
    renamed = False
    for i, port in enumerate(outputs):
        if port is None or i >= ctx.num_outputs:
            continue
        node.out_port(i).get_connection().set_source(port)
        if not renamed and port.node.soft_get("name", "").startswith(prefix):
            port.node["name"] = ctx.name
            renamed = True
    graph.remove_node(node.id)
    return True
