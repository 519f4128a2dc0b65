"""MO's partial-inference functions that extension ops name as their `infer`
(mo.front.common.partial_infer.concat / batch_norm), the slicing shape rule
(mo.front.common.partial_infer.utils.get_shape_from_slice) and MO's table of reductions
(mo.ops.ReduceOps.reduce_map)."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Node
from converter.legacy.build import add_opoutput
from converter.legacy.ops import PermuteAttrs
from converter.legacy.shapes import (
    compatible_shapes,
    copy_shape_infer,
    dynamic_dimension_value,
    is_dynamic_slice,
    mark_input_bins,
    shape_array,
    shape_insert,
    undefined_shape_of_rank,
)
from converter.legacy.utils import (
    Error,
    get_batch_dim,
    get_canonical_axis_index,
    get_dim_from_layout,
    get_features_dim,
    shape_for_layout,
)

__all__ = ["arg_ops_infer", "batch_norm_4_infer", "bias_add_infer", "concat_infer",
           "copy_type_infer", "crop_infer", "eltwise_reverse_infer", "factor_update",
           "get_shape_from_slice", "multi_box_prior_infer_mxnet", "override_batch", "reduce_map",
           "rnn_infer", "roipooling_infer", "set_reshape_new_output_shape"]


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


def copy_type_infer(node: Node) -> None:
    """Every output takes the element type of the first connected input."""
    inputs = [p for p in node.in_ports().values() if not p.disconnected()]
    if not inputs:
        raise Error(f"No input ports of node {node.soft_get('name')} to determine data type")
    for port in node.out_ports().values():
        port.set_data_type(inputs[0].get_data_type())


def bias_add_infer(node: Node, op: Any) -> None:
    """op of both input values when both are known, else input 0's shape."""
    a, b = (node.in_port(i).data.get_value() for i in (0, 1))
    if a is not None and b is not None and op is not None:
        node.out_port(0).data.set_value(op(a, b))
    else:
        node.out_port(0).data.set_shape(node.in_port(0).data.get_shape())


def _merged(a: Any, b: Any) -> np.ma.MaskedArray:
    """Two compatible partial shapes as one, each dimension taken where it is defined."""
    a, b = shape_array(a), shape_array(b)
    return shape_array([y if np.ma.is_masked(x) else x for x, y in zip(a, b)])


def eltwise_reverse_infer(node: Node) -> None:
    """An elementwise op's unknown input shape from its output shape: equal to it without
    broadcasting; with numpy broadcasting, for the lower-rank side's partner, the output's
    leading dimensions and the dimensions where the known input is 1."""
    shapes = [node.in_port(i).data.get_shape() for i in (0, 1)]
    out = node.out_port(0).data.get_shape()
    if out is None or None not in shapes:
        return
    name = node.soft_get("name", node.id)
    if node.soft_get("auto_broadcast", "numpy") == "none":
        merged = out
        for known in (s for s in shapes if s is not None):
            if not compatible_shapes(out, known):
                raise Error(f"shapes are not compatible for node '{name}'")
            merged = _merged(merged, known)
        for i, shape in enumerate(shapes):
            if shape is None:
                node.in_port(i).data.set_shape(merged)
        return
    known_idx = 0 if shapes[0] is not None else 1
    known = shapes[known_idx]
    if node.soft_get("auto_broadcast") != "numpy" or known is None or len(out) <= len(known):
        return
    deduced = undefined_shape_of_rank(len(out))
    for i in range(-1, -len(known) - 1, -1):
        if known[i] == 1 or out[i] == 1:
            deduced[i] = out[i]
    deduced[:-len(known)] = out[:-len(known)]
    node.in_port(1 - known_idx).data.set_shape(deduced)


def override_batch(graph: Any, batch: int | None) -> None:
    """Set dimension N of each Parameter (by the layout given for it, else dimension 0) to
    batch, except Parameters marked fixed_batch."""
    if batch is None:
        return
    for node in graph.get_op_nodes(op="Parameter"):
        if node.soft_get("fixed_batch", False):
            continue
        idx, has_layout = get_dim_from_layout(node, "N")
        if has_layout and idx is None:
            continue
        shape = shape_array(node["shape"])
        shape[idx if has_layout else 0] = batch
        node["shape"] = shape


def arg_ops_infer(node: Node) -> None:
    """ArgMax/ArgMin (top_k, axis, out_max_val): with a constant axis on input 1 that input is
    taken as the `axis` attribute; along an axis, that dimension becomes top_k; without one,
    Caffe's [N, 1 (2 with out_max_val), top_k] (at least rank 3)."""
    shape = node.in_port(0).data.get_shape()
    assert shape is not None, f"Input shape for the node {node.soft_get('name', node.id)} is None"
    if len([p for p in node.in_ports().values() if not p.disconnected()]) == 2:
        axis = node.in_port(1).data.get_value()
        if axis is None:
            return
        node["axis"] = axis
        node.in_port(1).disconnect()
    if node.has_valid("axis"):
        node["axis"] = get_canonical_axis_index(shape, int(node["axis"]))
        out = shape_array(shape).copy()
        out[node["axis"]] = node["top_k"]
        PermuteAttrs.create_permute_attrs(node, attrs=[("axis", "input:0")])
    else:
        out = shape_array(np.ones(max(len(shape), 3), np.int64))
        out[0], out[2] = shape[0], node["top_k"]
        out[1] = 2 if node.has_and_set("out_max_val") else 1
    node.out_port(0).data.set_shape(out)


def crop_infer(node: Node) -> None:
    """Caffe Crop: input 0 cut to the reference input 1 from `axis` on, at `offset` (one value
    for every axis, or one each); the attributes become the per-axis lists MO's IR wrote."""
    shapes = [p.data.get_shape() for p in node.in_ports().values() if not p.disconnected()]
    if len(shapes) < 2 or any(s is None for s in shapes):
        return
    shape, reference = shape_array(shapes[0]), shapes[1]
    start = get_canonical_axis_index(shape, int(node["axis"]))
    offsets = list(np.atleast_1d(node.soft_get("offset", None) or [0]))
    axes, offset, dims = [], [], []
    for i in range(start, len(shape)):
        at = offsets[0] if len(offsets) == 1 else offsets[i - start]
        if shape[i] - at < reference[i]:
            return  # the crop is out of bounds; the op's own checks report it
        axes.append(i); offset.append(at); dims.append(reference[i])  # noqa: E702
        shape[i] = reference[i]
    node["axis"], node["offset"], node["dim"] = axes, offset, dims
    node.out_port(0).data.set_shape(shape)


def roipooling_infer(node: Node) -> None:
    """ROIPooling: [rois count, channels, pooled_h, pooled_w] in the graph's layout; TF's
    CropAndResize form takes the pooled size from input 3 and drops inputs 2 and 3."""
    ports = [p for p in node.in_ports().values() if not p.disconnected()]
    shapes = [p.data.get_shape() for p in ports]
    if any(s is None for s in shapes):
        return
    if len(ports) == 4:
        size = node.in_port(3).data.get_value()
        if size is None:
            return
        node["pooled_h"], node["pooled_w"] = size[0], size[1]
        node.in_port(3).disconnect()
        node.in_port(2).disconnect()
    layout = node.graph.graph.get("layout", "NCHW")
    node.out_port(0).data.set_shape(shape_for_layout(
        layout, batch=shapes[1][get_batch_dim(layout, 4)],
        features=shapes[0][get_features_dim(layout, 4)], height=node["pooled_h"],
        width=node["pooled_w"]))


def factor_update(factor: float | None, real_factor: list, in_shape: list, out_shape: list,
                  name: str) -> float | None:
    """A resize's single zoom factor: the given one, else the measured one when height and
    width agree (None otherwise)."""
    if factor is None and real_factor[0] == real_factor[1]:
        return real_factor[0]
    return factor


def multi_box_prior_infer_mxnet(node: Node) -> None:
    """MXNet MultiBoxPrior: [1, 2, H * W * priors * 4] ([2, ...] with V10_infer, where input 0
    holds H and W as values), priors = len(min_size) + len(aspect_ratio) - 1."""
    v10 = node.has_and_set("V10_infer")
    data = node.in_port(0).data
    height, width = data.get_value() if v10 else data.get_shape()[2:]
    size = height * width * (len(node.min_size) + len(node.aspect_ratio) - 1) * 4
    node.out_port(0).data.set_shape(shape_array([2, size] if v10 else [1, 2, size]))


def set_reshape_new_output_shape(reshape_node: Node, new_output_shape: Any) -> None:
    """A Reshape's output shape, and its shape input's value when it has one."""
    reshape_node.out_port(0).data.set_shape(new_output_shape)
    if len([p for p in reshape_node.in_ports().values() if not p.disconnected()]) == 2:
        reshape_node.in_port(1).data.set_value(new_output_shape)


def _expand_zero_states(node: Node, input_shape: Any) -> None:
    """Initial states (ports 2, 3) given as zeros of size 1 along their `zero_shapes` dims take
    the input's size there."""
    for port in (2, 3):
        if port not in node.in_ports() or node.in_port(port).disconnected():
            continue
        producer, data = node.in_port(port).get_source().node, node.in_port(port).data
        for i in producer.soft_get("zero_shapes", None) or []:
            value = data.get_value()
            if value is not None and value.shape[i] != input_shape[i]:
                data.set_value(np.repeat(value, input_shape[i], axis=i))


def rnn_infer(node: Node, out_ports: list[int] | None = None) -> None:
    """MO's RNN/GRU/LSTM sequence shapes (batch_dim, sequence_dim, hidden_size, direction,
    has_num_directions, format, multilayers): output 0 is [seq, batch, (dirs,) hidden] (batch
    first when batch_dim is 0; MXNet's unnormalized form multiplies hidden by dirs), each state
    output in out_ports [(dirs,) batch, hidden * layers]. Outputs nothing consumes get a Result."""
    assert node.batch_dim <= 1 and node.sequence_dim <= 1 and node.batch_dim != node.sequence_dim
    assert node.direction in ("forward", "reverse", "bidirectional")
    mark_input_bins(node, ("W", "R", "B") if node.soft_get("blobs_wrb", False) else
                    ("weights", "biases"))
    shape = node.in_port(0).data.get_shape()
    assert len(shape) == 3
    _expand_zero_states(node, shape)
    dims = (node.batch_dim, node.sequence_dim) if node.batch_dim == 0 else (node.sequence_dim,
                                                                             node.batch_dim)
    out = shape_array([shape[dims[0]], shape[dims[1]], node.hidden_size])
    dirs = 2 if node.direction == "bidirectional" else 1
    state = shape_array([shape[node.batch_dim], node.hidden_size])
    if node.soft_get("has_num_directions", False):
        if node.soft_get("format", None) == "mxnet" and node.soft_get("normalized", None) is False:
            out[-1] *= dirs
        else:
            out = shape_insert(out, 1, dirs)
        state = shape_insert(state, 0, dirs)
    if node.soft_get("multilayers", False):
        state[-1] *= node.num_layers
    for port, port_shape in [(0, out)] + [(i, state) for i in out_ports or []]:
        if port not in node.out_ports() or node.out_port(port).disconnected():
            node.add_output_port(port, skip_if_exist=True)
            add_opoutput(node.graph, node.id, port, False)
        node.out_port(port).data.set_shape(port_shape)
