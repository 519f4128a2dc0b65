"""Extraction: give every framework node its opset op (MO's FrontExtractorOp and its driver).

Priority, highest first: a user FrontExtractorOp for the node's op, the framework's built-in
translator, a user Op class registered under the node's op (MO's extension_op_extractor).
Nodes nobody handles stay marked `unsupported`; the error is raised after the front phase,
so a FrontReplacementOp can still replace them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from converter.errors import UnsupportedOpError
from converter.graph.graph import Graph, Node
from converter.ops.op import Op

__all__ = ["FrontExtractorOp", "check_unsupported", "extract_nodes", "unsupported_nodes"]


class FrontExtractorOp:
    """User extractor for framework op `op`: `extract(node)` sets attributes, returns enabled."""

    op: ClassVar[str | None] = None
    enabled: ClassVar[bool] = True
    registered_ops: ClassVar[dict[str, type[FrontExtractorOp]]] = {}
    registered_cls: ClassVar[list[type[FrontExtractorOp]]] = []

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        FrontExtractorOp.registered_cls.append(cls)
        if cls.__dict__.get("op"):
            FrontExtractorOp.registered_ops[cls.op] = cls

    @classmethod
    def extract(cls, node: Node) -> bool:
        raise NotImplementedError


def _is_user_op(cls: type[Op]) -> bool:
    return not cls.__module__.startswith("converter.ops")


def extract_nodes(graph: Graph, translate: Callable[[Node], bool]) -> None:
    """Run the extractors over every framework node (those with `pb`), in topological order."""
    for node in graph.topological_order():
        if node.id not in graph or not node.has("pb") or node.has_and_set("extracted"):
            continue
        key = node.soft_get("op", None)
        ext = FrontExtractorOp.registered_ops.get(key)
        bare = key.split("::", 1)[1] if isinstance(key, str) and "::" in key else None
        if ext is None and bare is not None:  # MO keyed ONNX custom-domain ops by type alone
            ext = FrontExtractorOp.registered_ops.get(bare)
        if ext is not None and ext.enabled and ext.extract(node):
            node["extracted"] = True
            continue
        if translate(node):
            continue
        op_cls = Op.registered_ops.get(key) or (bare and Op.registered_ops.get(bare))
        if op_cls is not None and _is_user_op(op_cls):
            op_cls.update_node_stat(node)
            node["extracted"] = True
            continue
        node["unsupported"] = True


def unsupported_nodes(graph: Graph) -> list[Node]:
    """The framework nodes no extractor, translator or user op handled."""
    return [n for n in graph.get_op_nodes()
            if n.has_and_set("unsupported") and not n.has_and_set("extracted")]


def check_unsupported(graph: Graph, framework: str) -> None:
    """Raise one error listing every op type left without an extractor."""
    found: dict[str, list[str]] = {}
    for node in unsupported_nodes(graph):
        found.setdefault(node.op, []).append(node.soft_get("name", node.id))
    if not found:
        return
    parts = [
        f"{op} (node{'s' if len(names) > 1 else ''} {', '.join(names[:5])}"
        f"{', ...' if len(names) > 5 else ''})"
        for op, names in sorted(found.items())
    ]
    msg = (
        f"{len(found)} op type{'s are' if len(found) > 1 else ' is'} not supported: "
        f"{'; '.join(parts)}. Scaffold an extension with "
        f"'extgen new --mo-{framework}-ext --mo-op --ie-cpu-ext' and pass its folder "
        f"with --extensions"
    )
    raise UnsupportedOpError(msg, found)
