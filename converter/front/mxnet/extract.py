"""Run the built-in MXNet translator of one symbol node and splice its result in; Custom ops go
to the extractor registered for their op_type (or an MO-style extractor keyed "Custom")."""

from __future__ import annotations

from converter.front.extractor import FrontExtractorOp
from converter.front.mxnet import ops as _ops  # noqa: F401  (registers the translators)
from converter.front.mxnet.translator import MxnetNode, find_translator
from converter.front.translator import splice
from converter.graph.graph import Node

__all__ = ["translate"]


def translate(node: Node) -> bool:
    """Replace node by the ops its translator builds; False when there is none."""
    if node.symbol_dict.get("op") == "Custom":
        ext = FrontExtractorOp.registered_ops.get("Custom")
        if ext is not None and ext.enabled and ext.extract(node):
            node["extracted"] = True
            return True
        return False
    fn = find_translator(node.op)
    if fn is None:
        return False
    ctx = MxnetNode(node)
    splice(node, list(fn(ctx)), ctx.name)
    return True
