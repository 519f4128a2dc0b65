"""MO's shape conventions for legacy extensions: int64 arrays, masked where a dimension is dynamic.

The converter itself keeps shapes as tuples with -1 for a dynamic dimension. Legacy infer
functions see numpy arrays (see `converter.legacy.ops.legacy_infer`); what they write back is
turned into tuples again by `converter.graph.shape.as_shape`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Node

__all__ = [
    "compatible_dims", "compatible_shapes", "copy_shape_infer", "copy_value", "dynamic_dimension",
    "dynamic_dimension_value", "eltwise_infer", "float32_array", "float_array", "int64_array",
    "is_fully_defined", "mark_input_bins", "mo_array", "reverse_bypass_infer", "set_input_shapes",
    "shape_array", "shape_delete", "shape_insert", "single_output_infer",
    "strict_compare_tensors", "undefined_shape_of_rank", "unmask_shape",
    "assign_dims_to_weights", "is_dynamic_slice",
    "match_shapes", "symm_match_shapes", "tf_window_op_pad_infer", "clarify_partial_shape",
    "convert_deconv_tf_padding_to_str",
]

dynamic_dimension = np.ma.masked
dynamic_dimension_value = -1000000007


def shape_array(value: Any, dtype: Any = np.int64) -> np.ma.MaskedArray:
    """A shape as MO keeps it: -1, None, masked and dynamic_dimension_value become masked."""
    if isinstance(value, np.ma.MaskedArray):
        data, mask = np.asarray(value.filled(dynamic_dimension_value)), np.ma.getmaskarray(value)
    else:
        items = list(value) if np.ndim(value) else [value]
        mask = np.array([d is None or d is np.ma.masked for d in items], bool)
        data = np.array([dynamic_dimension_value if m else d for d, m in zip(items, mask)],
                        np.int64)
    data = np.asarray(data).astype(dtype, copy=False)
    mask = np.asarray(mask) | (data == dynamic_dimension_value)
    if np.issubdtype(data.dtype, np.integer):
        mask |= data < 0
    data = np.where(mask, dynamic_dimension_value, data).astype(dtype)
    return np.ma.masked_array(data, mask=mask)


def int64_array(value: Any) -> np.ndarray:
    return np.array(value, dtype=np.int64)


def float32_array(value: Any) -> np.ndarray:
    return np.array(value, dtype=np.float32)


float_array = float32_array


def mo_array(value: Any, dtype: Any = None) -> np.ndarray:
    """np.array that keeps float64 input as float32 unless dtype says otherwise (MO's rule)."""
    out = np.array(value, dtype=dtype)
    return out.astype(np.float32) if dtype is None and out.dtype == np.float64 else out


def undefined_shape_of_rank(rank: int) -> np.ma.MaskedArray:
    return shape_array([None] * rank)


def unmask_shape(value: Any) -> Any:
    """Dynamic dimensions as -1 (what the IR writes)."""
    if isinstance(value, np.ma.MaskedArray):
        return np.asarray(value.filled(-1)).astype(np.int64)
    return value


def is_fully_defined(value: Any) -> bool:
    """False for None and for anything holding a dynamic dimension (masked, None, or -1 in the
    converter's tuple shapes)."""
    if value is None or value is np.ma.masked:
        return False
    if isinstance(value, np.ma.MaskedArray):
        return not np.ma.is_masked(value)
    if isinstance(value, np.ndarray):
        return True
    if isinstance(value, (list, tuple)):
        return all(d is not None and d is not np.ma.masked and not (
            isinstance(d, (int, np.integer)) and d in (-1, dynamic_dimension_value)) for d in value)
    return True


def compatible_dims(a: Any, b: Any) -> bool:
    return a is np.ma.masked or b is np.ma.masked or int(a) == int(b)


def compatible_shapes(a: Any, b: Any) -> bool:
    a, b = shape_array(a), shape_array(b)
    return len(a) == len(b) and all(compatible_dims(x, y) for x, y in zip(a, b))


def strict_compare_tensors(a: Any, b: Any) -> bool:
    """Equal, dynamic dimensions included (a dynamic dim equals only a dynamic dim)."""
    if a is None or b is None:
        return a is None and b is None
    a, b = np.ma.asarray(a), np.ma.asarray(b)
    if a.shape != b.shape:
        return False
    ma, mb = np.ma.getmaskarray(a), np.ma.getmaskarray(b)
    return bool(np.array_equal(ma, mb) and np.array_equal(a.filled(0)[~ma], b.filled(0)[~mb]))


def shape_delete(shape: Any, obj: Any) -> np.ma.MaskedArray:
    keep = np.delete(np.arange(len(shape)), obj)
    return shape_array(shape)[keep]


def shape_insert(shape: Any, pos: int, obj: Any) -> np.ma.MaskedArray:
    shape = shape_array(shape)
    items = list(shape.filled(dynamic_dimension_value))
    new = list(np.atleast_1d(obj if obj is not np.ma.masked else dynamic_dimension_value))
    return shape_array(items[:pos] + new + items[pos:])


def mark_input_bins(node: Node, names: tuple = ("weights", "biases"), start_port: int = 1) -> None:
    """Name the constant inputs from start_port on (MO's edge 'bin' attribute)."""
    bins = {start_port + i: name for i, name in enumerate(names)}
    for u, v, key, d in list(node.graph.in_edges(node.id, keys=True, data=True)):
        if d.get("in") in bins:
            node.graph.add_edge(u, v, key, bin=bins[d["in"]])


# -- partial-infer helpers (mo.front.common.partial_infer.elemental / eltwise) ----------------

def _fill_type(node: Node, port: int = 0) -> None:
    data = node.out_port(port).data
    if data.get_data_type() is None:
        own = node.soft_get("data_type", None)
        ins = [p for p in node.in_ports().values() if not p.disconnected()]
        src = ins[0].data.get_data_type() if ins else None
        data.set_data_type(own if own is not None else src)


def single_output_infer(node: Node, shape_infer, value_infer=None) -> None:
    node.out_port(0).data.set_shape(shape_infer(node))
    if value_infer is not None and node.in_port(0).data.get_value() is not None:
        node.out_port(0).data.set_value(value_infer(node))
    _fill_type(node)


def copy_shape_infer(node: Node, value_infer=None) -> None:
    """Output 0 has the shape of input 0 (value_infer(node) its value when input 0 is constant)."""
    single_output_infer(node, lambda n: n.in_port(0).data.get_shape(), value_infer)


def copy_value(node: Node) -> Any:
    value = node.in_port(0).data.get_value()
    return None if value is None else np.array(value)


def eltwise_infer(node: Node, op=None, **kwargs: Any) -> None:
    """Broadcast the input shapes; compute op(*values) when every input is constant."""
    from converter.graph.shape import as_shape, broadcast

    ports = [p for _, p in sorted(node.in_ports().items()) if not p.disconnected()]
    shapes = [as_shape(p.data.get_shape()) for p in ports]
    values = [p.data.get_value() for p in ports]
    if op is not None and values and all(v is not None for v in values):
        node.out_port(0).data.set_value(op(*values, **kwargs))
    else:
        node.out_port(0).data.set_shape(broadcast(*shapes))
    _fill_type(node)


def reverse_bypass_infer(node: Node, in_ports: list[int]) -> None:
    """Give the listed input ports that have no shape yet the shape of output 0."""
    if node.out_port(0).disconnected():
        return
    shape = node.out_port(0).data.get_shape()
    if shape is None:
        return
    for port in in_ports:
        if node.is_in_port_connected(port) and node.in_port(port).data.get_shape() is None:
            node.in_port(port).data.set_shape(shape)


def set_input_shapes(node: Node, *shapes: Any) -> None:
    """Input port i (connected, no shape yet) gets shapes[i]."""
    for port, shape in enumerate(shapes):
        if node.is_in_port_connected(port) and node.in_port(port).data.get_shape() is None:
            node.in_port(port).data.set_shape(shape)


def match_shapes(pattern: Any, shape: Any) -> bool:
    """shape matches pattern, where a 0 or dynamic dimension in pattern matches anything."""
    pattern, shape = shape_array(pattern), shape_array(shape)
    if pattern.size != shape.size:
        return False
    keep = ~np.ma.getmaskarray(pattern) & (pattern.filled(0) != 0)
    return bool(np.ma.allequal(pattern[keep], shape[keep]))


def symm_match_shapes(shape1: Any, shape2: Any) -> bool:
    """match_shapes either way round."""
    return match_shapes(shape1, shape2) or match_shapes(shape2, shape1)


def assign_dims_to_weights(node: Node, spatial: Any, input_channel: Any,
                           output_channel: Any = None, dims_number: int | None = None) -> None:
    """Record which weight dimensions are spatial, input and output channels (MO's attrs)."""
    if spatial is not None:
        node["spatial_dims"] = np.array(spatial, np.int64)
    node["input_channel_dim"] = np.array(input_channel, np.int64)
    node["output_channel_dim"] = np.array(output_channel, np.int64)
    if node.has_valid("dim_attrs") and "input_channel_dim" not in node["dim_attrs"]:
        node["dim_attrs"].append("input_channel_dim")
    node["dims_number"] = dims_number


def is_dynamic_slice(s: Any) -> bool:
    """A slice with a dynamic start, stop or step."""
    return isinstance(s, slice) and any(v is np.ma.masked for v in (s.start, s.stop, s.step))


def tf_window_op_pad_infer(input: Any, window: Any, stride: Any, auto_pad: str | None,
                           is_deconv: bool = False, dilation: Any = None) -> tuple[Any, Any]:
    """(pads as [[begin, end], ...], output spatial shape) of a window op (convolution,
    pooling) over the input spatial shape, for auto_pad same_upper/same_lower/valid; the
    half a `same` pad cannot split goes at the end. (None, None) when something is unknown."""
    if input is None or window is None or stride is None or auto_pad is None:
        return None, None
    input, window, stride = shape_array(input), np.asarray(window), np.asarray(stride)
    dilation = np.ones(len(input), np.int64) if dilation is None else np.asarray(dilation)
    scale = 1 / stride if is_deconv else stride
    if auto_pad in ("same_lower", "same_upper"):
        rest = input % stride
        full = np.ma.maximum(window - np.ma.where(rest == 0, stride, rest), 0)
        low = (full // 2).astype(np.int64)
        pad = shape_array(np.ma.stack([low, full - low]).T.reshape(-1)).reshape(-1, 2)
        return pad, shape_array(np.ma.ceil(input / scale).astype(np.int64))
    if auto_pad == "valid":
        out = np.ma.ceil((input - ((window - 1) * dilation + 1) + 1) / scale).astype(np.int64)
        return np.zeros((len(input), 2), np.int64), shape_array(out)
    return None, None


def clarify_partial_shape(shapes: list) -> np.ma.MaskedArray:
    """The most defined of compatible partial shapes: each dimension from any shape that
    defines it ([-1, 2, -1] and [10, -1, -1] give [10, 2, -1])."""
    assert shapes
    out = shape_array(shapes[0])
    for shape in shapes:
        assert compatible_shapes(shape, out), f"shapes {shape} and {out} are not compatible"
        for i, dim in enumerate(shape_array(shape)):
            if not np.ma.is_masked(dim):
                out[i] = dim
    return out


def convert_deconv_tf_padding_to_str(padding: str) -> str:
    """TF's conv-transpose padding as the IR's auto_pad (SAME pads at the start)."""
    return {"SAME": "same_lower", "VALID": "valid"}[padding]
