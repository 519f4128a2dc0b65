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
    "dynamic_dimension_value", "eltwise_infer", "float32_array", "int64_array", "is_fully_defined",
    "mark_input_bins", "mo_array", "shape_array", "shape_delete", "shape_insert",
    "single_output_infer", "strict_compare_tensors", "undefined_shape_of_rank", "unmask_shape",
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
    for i, name in enumerate(names):
        port = start_port + i
        for u, _, d in node.graph.in_data(node.id):
            if d.get("in") == port:
                d["bin"] = name


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
