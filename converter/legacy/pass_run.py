"""What MO did around each run of a legacy transformation in the middle and back phases.

While the pass runs, tensor shapes are what MO's were: int64 masked arrays
(`shape[shape != 1].size`, `shape.copy()`), and ops MO named otherwise have MO's names
(`op == 'Mul'`, converter.front.mo_names); tuples and opset names again after it. In the
front phase, ops MO held untyped have no type (converter.legacy.front_types). In every phase,
ops extgen writes in a newer opset have MO's older version (converter.legacy.mo_versions), and
MO's port maps of a Loop refuse when read (converter.legacy.loop_maps); in the middle and back
phases an Interpolate is MO's Interpolate-4 (converter.legacy.mo_interpolate).

A node a pass builds gets an output tensor without shape or type (MO marked such a node
`need_shape_inference` when a port created its output data node); MO's graph clean-up
inferred those nodes, gave a Const to each value-holding tensor without a producer, and its
IR emitter inferred the types of all. extgen does the same when the outermost legacy pass
returns, so the passes after it and the IR writer see them as MO's did.

A Result such a pass marked `keep_output_port` (MO's TopKNormalizer puts one on the values
output of an ArgMax's TopK) is not written to the IR, as MO's emitter skipped it: its
producer's output port stays, unconsumed.

MO's front passes ended with its CreateTensorNodes; a copy of it calls create_tensor_nodes,
which here leaves the front phase as extgen's pipeline does after the front passes (the
pipeline then finds that done).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from converter.back.replacement import BackFinish, BackReplacementPattern
from converter.errors import ExtensionError
from converter.front.mo_names import from_mo_names, mo_name, opset_name
from converter.graph.graph import Graph, Node
from converter.graph.shape import as_shape
from converter.legacy import (
    front_ops,
    front_types,
    kaldi_crops,
    loop_maps,
    mo_interpolate,
    mo_versions,
    tf_space_batch,
)
from converter.legacy.mo_ops.strided_slice_masks import restore_masks, show_mo_masks
from converter.legacy.mo_rnn import refuse_recurrent_matches
from converter.legacy.shapes import shape_array
from converter.middle.partial_infer import infer_node
from converter.middle.tensor_nodes import create_tensor_nodes as _tensor_nodes
from converter.middle.tensor_nodes import has_tensor_nodes

__all__ = ["DropKeptOutputResults", "create_tensor_nodes", "mo_pass_run"]

_DEPTH = "_legacy_pass_depth"  # graph.graph key: legacy passes running now (one calls another)


def _untyped(node: Node) -> bool:
    """An op with an output tensor that has no shape or no type (and no value)."""
    return any(
        data.soft_get("value", None) is None
        and (data.soft_get("shape", None) is None or data.soft_get("data_type", None) is None)
        for _, data in node.iter_out_data())


def _infer_new_nodes(graph: Graph, fresh: set[str]) -> None:
    """Infer each op whose output tensor lacks a shape or type, or is one of `fresh`, producers
    first (MO's clean-up inferred the ops marked `need_shape_inference`: a port had created an
    output data node for them, which may hold a copy of another tensor's shape and value)."""
    nodes = graph._node
    for nid in graph.topological_ids():
        if nodes[nid].get("kind") != "op" or nodes[nid].get("infer") is None:
            continue
        node = Node(graph, nid)
        if _untyped(node) or (fresh and any(d.id in fresh for _, d in node.iter_out_data())):
            infer_node(node)


def _to_mo_view(graph: Graph) -> set[str]:
    """One walk: each tensor's shape as MO held it, an int64 masked array (masked where
    dynamic), one of its own per tensor (MO's passes may write into it), a Const's `shape`
    (its value's, as MO's Const op set it), and MO's op names; returns the data nodes' ids."""
    arrays: dict[tuple, Any] = {}
    ids = set()
    for nid, attrs in graph._node.items():
        if attrs.get("kind") != "data":
            mo_name(attrs)
            _const_shape(attrs, show=True)
            continue
        ids.add(nid)
        shape = attrs.get("shape")
        if type(shape) is tuple:
            array = arrays.get(shape)
            if array is None:
                array = arrays[shape] = shape_array(shape)
            attrs["shape"] = array.copy()
    return ids


def _from_mo_view(graph: Graph, known: set[str]) -> set[str]:
    """One walk: each tensor's shape as extgen holds it, a tuple (-1 where dynamic), and the
    opset's op names; returns the data nodes not in `known` (those the pass made)."""
    fresh = set()
    for nid, attrs in graph._node.items():
        if attrs.get("kind") != "data":
            opset_name(attrs)
            _const_shape(attrs, show=False)
            continue
        if nid not in known:
            fresh.add(nid)
        shape = attrs.get("shape")
        if shape is not None and type(shape) is not tuple:
            attrs["shape"] = as_shape(shape)
    return fresh


def _const_shape(attrs: dict, show: bool) -> None:
    """A Const's `shape` (its value's, as MO's Const op set it) while a legacy pass runs, gone
    after it (the emitter writes it from the value)."""
    if attrs.get("op") != "Const":
        return
    if show and "value" in attrs:
        attrs["shape"] = shape_array(np.shape(attrs["value"]))
    elif not show:
        attrs.pop("shape", None)


def _const_shapes(graph: Graph, show: bool) -> None:
    """_const_shape on every node (the front phase, which has no tensor walk)."""
    for attrs in graph._node.values():
        _const_shape(attrs, show)


def _after_mo_pass(graph: Graph, fresh: set[str]) -> None:
    """What MO's clean-up did after a pass: a Const for each value-holding tensor without a
    producer (MO's Op.create_input_data_node makes them), then the new nodes inferred: those
    with an output data node in `fresh` too."""
    from converter.legacy.build import const_for_input_data

    const_for_input_data(graph)
    _infer_new_nodes(graph, fresh)


def _graph_of(args: tuple, kwargs: dict) -> Graph | None:
    return next((a for a in (*args, kwargs.get("graph")) if isinstance(a, Graph)), None)


def _refuse_before_ports(cls: type) -> None:
    """A pass ordered before MO's RestorePorts worked on the graph of MO's loader before it had
    ports (MO's Kaldi SetPortsPattern gave them); extgen's loaders give ports, so it stops."""
    try:
        before = {getattr(c, "__name__", "") for c in cls().run_before()}
    except Exception:  # (its own ordering fails where the runner orders it)
        return
    if "RestorePorts" in before:
        where = front_ops.class_location(cls)
        raise ExtensionError(
            f"{where}{cls.__name__} runs before MO's RestorePorts, on the graph MO's loader made "
            "before it had ports; extgen's loaders build the ports themselves, so it is not "
            "supported: remove it from the extension folder, or order it after RestorePorts")


def _wrap(fn: Callable[..., Any], normalizes_masks: bool, cls: type) -> Callable[..., Any]:
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        graph = _graph_of(args, kwargs)
        if graph is None:
            return fn(*args, **kwargs)
        meta, stage = graph.graph, graph.stage  # (a front pass may end the front stage)
        outermost = not meta.get(_DEPTH)
        if outermost:
            _refuse_before_ports(cls)
        tensors = outermost and stage in ("middle", "back")
        meta[_DEPTH] = meta.get(_DEPTH, 0) + 1
        if tensors:
            known = _to_mo_view(graph)
        untyped = front_types.show(graph, tensors) if outermost and stage != "back" else []
        if outermost and stage != "back":
            kaldi_crops.show(graph)
        if outermost and not tensors:
            tf_space_batch.show(graph)
            front_ops.show(graph)
            _const_shapes(graph, show=True)
        if outermost:
            show_mo_masks(graph, tensors, normalizes_masks)
            versions = mo_versions.show(graph)
            loops = loop_maps.show(graph)
            resizes = mo_interpolate.show(graph) if tensors else []
        try:
            result = fn(*args, **kwargs)
        finally:
            meta[_DEPTH] -= 1
            if outermost:
                del meta[_DEPTH]
                mo_interpolate.restore(graph, resizes, cls)
                mo_versions.restore(graph, versions, cls)
                loop_maps.restore(graph, loops)
                restore_masks(graph, normalizes_masks)
                front_types.restore(graph, untyped)
                kaldi_crops.restore(graph)
                tf_space_batch.restore(graph)
                if not tensors:
                    front_ops.restore(graph, cls)
                    _const_shapes(graph, show=False)
            if tensors:
                fresh = _from_mo_view(graph, known)
        if tensors:
            _after_mo_pass(graph, fresh)
        return result

    run.mo_pass_run = True
    return run


def mo_pass_run(cls: type) -> None:
    """Make cls's find_and_replace_pattern (a method, staticmethod or classmethod) infer,
    after the outermost legacy pass of the middle or back phase, what the pass built."""
    refuse_recurrent_matches(cls)
    raw = inspect.getattr_static(cls, "find_and_replace_pattern")
    fn = getattr(raw, "__func__", raw)
    if getattr(fn, "mo_pass_run", False):
        return
    kind = type(raw) if isinstance(raw, (staticmethod, classmethod)) else None
    run = _wrap(fn, cls.__name__ == "StridedSliceMasksNormalizer", cls)  # (MO's mask flip)
    cls.find_and_replace_pattern = kind(run) if kind else run


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
    graph leaves the front phase, opset op names back, as the pipeline makes it after the front
    passes (MO's copy set the middle stage first); a graph that has its data nodes stays as it
    is. FakeOutputs stay, for MO's FakeOutputResolver in the back phase."""
    if has_tensor_nodes(graph):
        return
    graph.stage = "front"  # what it still is (MO's CreateTensorNodes set 'middle' first)
    tf_space_batch.end_front(graph)
    front_ops.restore(graph)
    from_mo_names(graph)
    _tensor_nodes(graph)
