"""Extraction: give every framework node its opset op (MO's FrontExtractorOp and its driver).

Priority, highest first: a user FrontExtractorOp for the node's op, the framework's built-in
translator, a user Op class registered under the node's op (MO's extension_op_extractor).
Nodes nobody handles stay marked `unsupported`; the error is raised after the front phase,
so a FrontReplacementOp can still replace them.
"""

from __future__ import annotations

import inspect
import logging
import os
import traceback
from collections.abc import Callable
from functools import partial
from typing import ClassVar, TypeVar

from converter.errors import ConversionError, ExtgenError, UnsupportedOpError
from converter.front.translator import TranslatorRegistry, node_error, translate
from converter.graph.graph import Graph, Node
from converter.middle.subgraphs import bodies_of
from converter.ops.op import Op

log = logging.getLogger("extgen.convert")

__all__ = [
    "FrontExtractorOp", "check_unsupported", "extract_nodes", "source_file", "unsupported_nodes",
]

_T = TypeVar("_T")


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


def source_file(code: object) -> str:
    """The file that defines an extractor class, a translator function or an Op class."""
    try:
        return inspect.getsourcefile(code) or inspect.getfile(code)  # type: ignore[arg-type]
    except (TypeError, OSError):
        return "<unknown file>"


def _failure(node: Node, code: object, err: Exception) -> ConversionError:
    """A clear error for an unexpected exception raised while `code` handled node."""
    path = source_file(code)
    real = os.path.realpath(path)
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if os.path.realpath(f.filename) == real]
    where = f"{path}:{frames[-1].lineno}" if frames else path
    detail = " ".join(str(err).split())
    raised = f"{type(err).__name__}: {detail}" if detail else type(err).__name__
    if getattr(code, "__module__", "").startswith("converter."):
        fix = ("check the node's attributes; if they are valid, please report this bug (an "
               "extension, --extensions, can handle the node meanwhile)")
        return node_error(node, f"the built-in translator ({where}) raised {raised}", fix)
    return node_error(node, f"the extractor {where} raised {raised}", "fix the extractor")


def _guarded(node: Node, code: object, call: Callable[[], _T]) -> _T:
    """call(), with any exception that is not already a user-facing error turned into one that
    names node and the file (and line) of `code`."""
    try:
        return call()
    except ExtgenError:
        raise
    except Exception as err:
        raise _failure(node, code, err) from err


def _run_user_extractor(node: Node, keys: list[str]) -> bool:
    """The first enabled user FrontExtractorOp under one of keys that extracts node."""
    for key in keys:
        ext = FrontExtractorOp.registered_ops.get(key)
        if ext is not None and ext.enabled and _guarded(node, ext, partial(ext.extract, node)):
            node["extracted"] = True
            _embed_inputs(node)
            return True
    return False


def _embed_inputs(node: Node) -> None:
    """Constants an MO extractor embedded (`embedded_inputs`: (port, attribute, edge attrs), as
    mo.front.caffe.extractors.utils.embed_input writes them) become Const inputs."""
    for port, name, edge_attrs in node.attrs().pop("embedded_inputs", None) or []:
        const = Op.builtin_ops["Const"](node.graph).create_node(attrs={
            "name": f"{node.soft_get('name', node.id)}/{name}", "value": node.attrs().pop(name)})
        node.add_input_port(port, skip_if_exist=True)
        const.out_port(0).connect(node.in_port(port), dict(edge_attrs or {}))


def _run_user_op(node: Node, keys: list[str]) -> type[Op] | None:
    """Give node the attributes of the first user Op class registered under one of keys."""
    for key in keys:
        op_cls = Op.registered_ops.get(key)
        if op_cls is not None and _is_user_op(op_cls):
            _guarded(node, op_cls, partial(op_cls.update_node_stat, node))
            node["extracted"] = True
            return op_cls
    return None


def _warn_unread_attrs(node: Node, op_cls: type[Op], model_attrs: list[str]) -> None:
    """An op class bound without an extractor reads none of the model's attributes."""
    if model_attrs:
        log.warning(
            "node '%s' (%s): model attribute(s) %s read by no extractor, so op class %s (%s) "
            "uses its defaults; generate an extractor with 'extgen new --mo-%s-ext' and pass "
            "its folder with --extensions", node.soft_get("name", node.id), node.soft_get("op"),
            ", ".join(model_attrs), op_cls.__name__, source_file(op_cls),
            node.graph.graph.get("fw", "<framework>"),
        )


def extract_nodes(graph: Graph, translators: TranslatorRegistry,
                  node_attrs: Callable[[Node], dict] | None = None) -> None:
    """Run the extractors over every framework node (those with `pb`), in topological order.
    An unexpected exception in a translator or a user extractor becomes a ConversionError
    naming the node and the file (and line) it came from; `node_attrs` (the model's attributes
    of a node) lets an op class bound without an extractor warn about what it drops."""
    for node in graph.topological_order():
        if node.id not in graph or not node.has("pb") or node.has_and_set("extracted"):
            continue
        keys = [k for k in translators.context.extractor_keys(node) if k is not None]
        if _run_user_extractor(node, keys):
            continue
        fn = translators.for_node(node)
        if fn is not None:
            _guarded(node, fn, partial(translate, node, fn, translators.context))
        elif (op_cls := _run_user_op(node, keys)) is None:
            node["unsupported"] = True
        elif node_attrs is not None:
            _warn_unread_attrs(node, op_cls, sorted(node_attrs(node)))


def unsupported_nodes(graph: Graph) -> list[Node]:
    """The framework nodes no extractor, translator or user op handled (in sub-graph bodies
    too)."""
    found = [n for n in graph.get_op_nodes()
             if n.has_and_set("unsupported") and not n.has_and_set("extracted")]
    for body in bodies_of(graph):
        found += unsupported_nodes(body)
    return found


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
