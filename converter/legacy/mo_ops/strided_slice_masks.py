"""MO's StridedSlice as its passes saw it, and the static methods its modules call.

MO kept begin_mask and end_mask inverted against the opset (1: take the begin or end value)
from extraction until its back pass StridedSliceMasksNormalizer flipped them, and its
inference left the node's `slices` (one slice, int, np.newaxis or Ellipsis per dimension of the
slice expression). extgen keeps the opset's masks throughout, so while a legacy pass runs each
StridedSlice shows MO's masks and slices (`show_mo_masks`) and gets the opset's back after it
(`restore_masks`); a copy of MO's StridedSliceMasksNormalizer ends that, as MO's did.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Graph, Node
from converter.legacy.shapes import dynamic_dimension, dynamic_dimension_value

__all__ = ["MASKS_NORMALIZED", "align_mask_with_slice_rank", "get_mask_names", "get_slices",
           "restore_masks", "show_mo_masks"]

MASKS_NORMALIZED = "strided_slice_masks_normalized"  # graph.graph key: MO's flip has run
_SHOWN = "_mo_masks_shown"  # graph.graph key: the nodes showing MO's masks during a pass
_NAMES = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")


def get_mask_names() -> list[str]:
    return list(_NAMES)


def _bit(node: Node, mask: str, i: int) -> bool:
    values = node.soft_get(mask, [])
    return i < len(values) and bool(values[i])


def get_slices(node: Node, data_shape: Any) -> list:
    """MO's slice expression of node (its masks in MO's form) over an input of data_shape;
    dynamic_dimension_value where a bound is not constant."""
    rank = int(node.in_port(1).data.get_shape()[0])
    begin, end = node.in_port(1).data.get_value(), node.in_port(2).data.get_value()
    strides = (node.in_port(3).data.get_value() if node.is_in_port_connected(3)
               else np.ones([rank], np.int64))
    slices: list = [None] * rank
    at = 0  # the input dimension the slice expression has reached
    for i in range(rank):
        if _bit(node, "new_axis_mask", i):
            slices[i] = np.newaxis
        elif _bit(node, "shrink_axis_mask", i):
            if begin is None or begin[i] is dynamic_dimension:
                slices[i] = dynamic_dimension_value
            else:
                slices[i] = int(begin[i])
                if slices[i] < 0 and data_shape[at] is not dynamic_dimension:
                    slices[i] += int(data_shape[at])  # ConvertGroupedStridedSlice compares them
        elif _bit(node, "ellipsis_mask", i):
            slices[i] = ...
            at += len(data_shape) - rank + int(np.count_nonzero(node.soft_get("new_axis_mask",
                                                                               [])))
        elif begin is None or end is None or strides is None:
            slices[i] = dynamic_dimension_value
        else:
            start = begin[i] if _bit(node, "begin_mask", i) else None
            stop = end[i] if _bit(node, "end_mask", i) else None
            slices[i] = slice(start, stop, strides[i])
        at += 0 if _bit(node, "new_axis_mask", i) else 1
    return slices


def align_mask_with_slice_rank(node: Node, slice_rank: int) -> None:
    """Each mask padded to slice_rank: begin and end with 1 (MO's form: take the value),
    the others with 0."""
    for name in _NAMES:
        pad = 1 if name in ("begin_mask", "end_mask") else 0
        values = list(np.ravel(node.soft_get(name, [])))
        node[name] = np.array(values + [pad] * (slice_rank - len(values)), dtype=int)


def _flip(values: Any) -> np.ndarray:
    return np.array([1 - int(v) for v in np.ravel(values)], dtype=np.int64)


class _OpsetInfer:
    """A shown node's inference (a pass may call it, or re-infer the graph): on the opset's
    masks, and MO's `slices` after it, as MO's StridedSlice.infer left them."""

    def __init__(self, infer: Any) -> None:
        self.infer = infer

    def __call__(self, node: Node) -> None:
        for name in ("begin_mask", "end_mask"):
            node[name] = _flip(node[name])
        try:
            self.infer(node)
        finally:
            for name in ("begin_mask", "end_mask"):
                node[name] = _flip(node[name])
        shape = node.in_port(0).data.get_shape()
        if shape is not None:
            node["slices"] = get_slices(node, shape)


def show_mo_masks(graph: Graph, tensors: bool, normalizes: bool = False) -> None:
    """Each StridedSlice in the opset's form shows MO's masks and, where the graph has
    `tensors` (middle and back), MO's slices; not once MO's StridedSliceMasksNormalizer has
    run, but always to a copy of that pass (`normalizes`), which flips them itself."""
    if graph.graph.get(MASKS_NORMALIZED) and not normalizes:
        return
    shown = graph.graph[_SHOWN] = [n for n in graph.get_op_nodes(type="StridedSlice")
                                   if n.soft_get("mo_lowered", True) is not False]
    for node in shown:
        for name in ("begin_mask", "end_mask"):
            node[name] = _flip(node.soft_get(name, []))
        if node.has_valid("infer"):
            node["infer"] = _OpsetInfer(node["infer"])
        if tensors and node.is_in_port_connected(0) and node.is_in_port_connected(1):
            shape, bounds = node.in_port(0).data.get_shape(), node.in_port(1).data.get_shape()
            if shape is not None and bounds is not None:
                node["slices"] = get_slices(node, shape)


def restore_masks(graph: Graph, normalized: bool) -> None:
    """The opset's masks again on each node that showed MO's; `normalized`: the pass was MO's
    StridedSliceMasksNormalizer, which flipped them itself (and every later pass sees them as
    the opset's, as in MO)."""
    if normalized:
        graph.graph[MASKS_NORMALIZED] = True
    for node in graph.graph.pop(_SHOWN, []):
        if not graph.has_node(node.id):
            continue
        if isinstance(node.soft_get("infer", None), _OpsetInfer):
            node["infer"] = node["infer"].infer
        if not normalized:
            for name in ("begin_mask", "end_mask"):
                node[name] = _flip(node[name])
        if node.has_valid("slices"):
            del node["slices"]
