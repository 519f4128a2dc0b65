"""What MO did around each run of a legacy transformation in the middle and back phases.

A node a pass builds there gets an output tensor without shape or type (MO marked such a
node `need_shape_inference` when a port created its output data node); MO's graph clean-up
inferred those nodes and its IR emitter inferred the types of all. extgen infers them when the
outermost legacy pass returns, in topological order, so the passes after it and the IR writer
see them typed, as MO's did. And a Result such a pass marked `keep_output_port` (MO's
TopKNormalizer puts one on the values output of an ArgMax's TopK) is not written to the IR,
as MO's emitter skipped it: its producer's output port stays, unconsumed.

MO's front passes ended with its CreateTensorNodes; a copy of it calls create_tensor_nodes,
which here leaves the front phase as extgen's pipeline does after the front passes (the
pipeline then finds that done).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from converter.back.replacement import BackFinish, BackReplacementPattern
from converter.graph.graph import Graph, Node
from converter.middle.partial_infer import infer_node
from converter.middle.tensor_nodes import create_tensor_nodes as _tensor_nodes
from converter.middle.tensor_nodes import has_tensor_nodes

__all__ = ["DropKeptOutputResults", "create_tensor_nodes", "infer_new_nodes", "mo_pass_run"]

_DEPTH = "_legacy_pass_depth"  # graph.graph key: legacy passes running now (one calls another)


def _untyped(node: Node) -> bool:
    """An op with an output tensor that has no shape or no type (and no value)."""
    return any(
        data.soft_get("value", None) is None
        and (data.soft_get("shape", None) is None or data.soft_get("data_type", None) is None)
        for _, data in node.iter_out_data())


def infer_new_nodes(graph: Graph) -> None:
    """Infer each op whose output tensor lacks a shape or type, producers first (MO's
    clean-up shape inference of `need_shape_inference` nodes)."""
    nodes = graph._node
    for nid in graph.topological_ids():
        if nodes[nid].get("kind") != "op" or nodes[nid].get("infer") is None:
            continue
        node = Node(graph, nid)
        if _untyped(node):
            infer_node(node)


def _graph_of(args: tuple, kwargs: dict) -> Graph | None:
    return next((a for a in (*args, kwargs.get("graph")) if isinstance(a, Graph)), None)


def _wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        graph = _graph_of(args, kwargs)
        if graph is None:
            return fn(*args, **kwargs)
        meta, stage = graph.graph, graph.stage  # (a front pass may end the front stage)
        meta[_DEPTH] = meta.get(_DEPTH, 0) + 1
        try:
            result = fn(*args, **kwargs)
        finally:
            meta[_DEPTH] -= 1
            outermost = not meta[_DEPTH]
            if outermost:
                del meta[_DEPTH]
        if outermost and stage in ("middle", "back"):
            infer_new_nodes(graph)
        return result

    run.mo_pass_run = True
    return run


def mo_pass_run(cls: type) -> None:
    """Make cls's find_and_replace_pattern (a method, staticmethod or classmethod) infer,
    after the outermost legacy pass of the middle or back phase, what the pass built."""
    raw = inspect.getattr_static(cls, "find_and_replace_pattern")
    fn = getattr(raw, "__func__", raw)
    if getattr(fn, "mo_pass_run", False):
        return
    kind = type(raw) if isinstance(raw, (staticmethod, classmethod)) else None
    cls.find_and_replace_pattern = kind(_wrap(fn)) if kind else _wrap(fn)


class DropKeptOutputResults(BackReplacementPattern):
    """Each Result marked keep_output_port goes (after the back passes, MO's op lowering
    included); the output it read stays on its producer."""

    def run_after(self) -> list:
        from converter.legacy.mo_ops.lowering import LowerLateMoOps

        return [BackFinish, LowerLateMoOps]

    def run_before(self) -> list:
        return []

    def find_and_replace_pattern(self, graph: Graph) -> None:
        for node in graph.get_op_nodes(op="Result", keep_output_port=True):
            graph.remove_node(node.id)


def create_tensor_nodes(graph: Graph) -> None:
    """MO's create_tensor_nodes (its CreateTensorNodes ran it after the front passes): the
    graph leaves the front phase, FakeOutputs gone and opset op names back, as the pipeline
    makes it after the front passes (MO's copy set the middle stage first); a graph that has
    its data nodes stays as it is."""
    from converter.front.mo_names import from_mo_names
    from converter.legacy.fake_outputs import remove_fake_outputs

    if has_tensor_nodes(graph):
        return
    graph.stage = "front"  # what it still is (MO's CreateTensorNodes set 'middle' first)
    remove_fake_outputs(graph)
    from_mo_names(graph)
    _tensor_nodes(graph)
