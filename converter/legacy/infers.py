"""MO's partial-inference functions that extension ops name as their `infer`
(mo.front.common.partial_infer.concat / batch_norm), the slicing shape rule
(mo.front.common.partial_infer.utils.get_shape_from_slice) and MO's table of reductions
(mo.ops.ReduceOps.reduce_map)."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Node
from converter.legacy.shapes import (
    copy_shape_infer,
    dynamic_dimension_value,
    is_dynamic_slice,
    mark_input_bins,
    shape_array,
)
from converter.legacy.utils import Error, get_canonical_axis_index

__all__ = ["batch_norm_4_infer", "concat_infer", "get_shape_from_slice", "reduce_map"]


def _l1(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    return np.sum(np.absolute(x), axis=axis, keepdims=keepdims)


def _l2(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    return np.sqrt(np.sum(np.square(x), axis=axis, keepdims=keepdims))


# mo.ops.ReduceOps.reduce_map: MO's reduce op name -> the numpy reduction (x, axis, keepdims)
reduce_map = {
    "ReduceSum": np.sum, "ReduceProd": np.prod, "ReduceL1": _l1, "ReduceL2": _l2,
    "ReduceMax": np.max, "ReduceMin": np.min, "ReduceMean": np.mean, "ReduceAnd": np.all,
    "ReduceLogicalAnd": np.all, "ReduceLogicalOr": np.any,
}


def concat_infer(node: Node) -> None:
    """Output shape of a concatenation along node.axis (or the constant last input when the
    node has no axis, which is then dropped); a dynamic dimension off the axis takes a known
    one from another input."""
    name = node.soft_get("name", node.id)
    count = len(node.in_nodes())
    if not node.has_valid("axis"):
        count = node.N
        axis_in = node.in_port(count)
        value = axis_in.data.get_value()
        if value is None or np.size(value) != 1:
            msg = f'Input with value is not specified for node "{name}"'
            raise Error(msg)
        node["axis"] = int(np.asarray(value).item())
        axis_in.disconnect()
    shapes = [node.in_port(i).data.get_shape() for i in range(count)]
    if any(s is None for s in shapes):
        msg = f'One of the input shapes is not defined for node "{name}"'
        raise Error(msg)
    shapes = [shape_array(s) for s in shapes]
    axis = get_canonical_axis_index(shapes[0], node.axis)
    node["axis"] = axis
    out = list(shapes[0])
    for shape in shapes[1:]:
        if len(shape) != len(out) or not all(
                a is np.ma.masked or b is np.ma.masked or a == b
                for i, (a, b) in enumerate(zip(out, shape)) if i != axis):
            msg = f'Concat input shapes do not match for node "{name}" with axis {axis}'
            raise Error(msg)
        both = out[axis] is not np.ma.masked and shape[axis] is not np.ma.masked
        out[axis] = out[axis] + shape[axis] if both else np.ma.masked
    for pos in range(len(out)):
        if pos != axis and out[pos] is np.ma.masked:
            out[pos] = next((s[pos] for s in shapes if s[pos] is not np.ma.masked), np.ma.masked)
    node.out_port(0).data.set_shape(shape_array([None if d is np.ma.masked else d for d in out]))


def batch_norm_4_infer(node: Node) -> None:
    """Output like input 0; inputs 1-4 are weights, biases, mean, variance; with fix_gamma
    the weights become ones."""
    copy_shape_infer(node)
    mark_input_bins(node, ("weights", "biases", "mean", "variance"))
    if node.has_and_set("fix_gamma"):
        weights = node.in_port(1).data.get_value()
        node.in_port(1).data.set_value(np.ones_like(weights, dtype=np.float32))


def get_shape_from_slice(input_shape: Any, slices: list) -> np.ma.MaskedArray:
    """The shape of input[slices] without computing it: slices, ints (dropping the axis),
    np.newaxis, Ellipsis and dynamic entries."""
    input_shape = shape_array(input_shape)
    new_axes = sum(1 for s in slices if s is np.newaxis)
    ellipsis_dims = len(input_shape) - len(slices) + new_axes + 1
    out: list[Any] = []
    i = 0
    for s in slices:
        if s is np.ma.masked or (isinstance(s, (int, np.integer)) and
                                 s == dynamic_dimension_value):
            out.append(None)
            i += 1
        elif isinstance(s, slice):
            dim = input_shape[i]
            known = dim is not np.ma.masked and not is_dynamic_slice(s)
            out.append(len(range(*s.indices(int(dim)))) if known else None)
            i += 1
        elif s is np.newaxis:
            out.append(1)
        elif s is Ellipsis:
            out += [None if d is np.ma.masked else d for d in input_shape[i:i + ellipsis_dims]]
            i += ellipsis_dims
        elif isinstance(s, (int, np.integer)):
            i += 1
        else:
            msg = f'Element type of a slice list is unacceptable: "{type(s)}"'
            raise Error(msg)
    out += [None if d is np.ma.masked else d for d in input_shape[i:]]
    return shape_array(out)
