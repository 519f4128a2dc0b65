"""Caffe translators that cut, reorder, repeat or select along axes: Crop, ShuffleChannel, Tile
and ArgMax."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.caffe.ops import _BIG, I64, _rank, _shape_part
from converter.front.caffe.translator import CaffeNode, caffe_op
from converter.graph.port import Port


def _shape(n: CaffeNode, x: Port) -> Port:
    return n.op("ShapeOf", [x], output_type=np.dtype(I64))


@caffe_op("Crop")
def crop(n: CaffeNode):
    """Bottom 0 cut to bottom 1's size on every axis from `axis` on, each from its offset (one
    offset for all those axes, or one per axis; none: 0)."""
    if n.num_inputs != 2:
        n.reject(f"{n.num_inputs} bottom(s); Crop takes the blob to cut and a reference blob")
    x, ref = n.input(0), n.input(1)
    axis = int(n.attr("axis"))
    offsets = [int(o) for o in n.attr("offset", [])] or [0]
    size = _shape_part(n, _shape(n, ref), axis, _BIG)
    end = n.op("Add", [size, n.const(offsets, I64)])
    begin = n.op("Subtract", [end, size])  # the offsets, one per cropped axis
    if axis != 0:
        head = _shape_part(n, _shape(n, x), 0, axis)
        begin = n.op("Concat", [n.op("Multiply", [head, n.const([0], I64)]), begin], axis=0)
        end = n.op("Concat", [head, end], axis=0)
    return [n.op("StridedSlice", [x, begin, end])]


@caffe_op("ShuffleChannel")
def shuffle_channel(n: CaffeNode):
    return [n.op("ShuffleChannels", [n.input(0)], axis=1, group=int(n.attr("group")))]


@caffe_op("Tile")
def tile(n: CaffeNode):
    """`tiles` copies of the blob, one after the other along `axis`."""
    x, axis, tiles = n.input(0), int(n.attr("axis")), int(n.attr("tiles"))
    if tiles < 1:
        n.reject(f"tiles is {tiles}; give a positive number of copies")
    if axis < 0:  # Tile lines its repeats up with the last axes
        repeats = n.const([tiles] + [1] * (-axis - 1), I64)
    else:
        axes = n.op("Range", [n.const(0, I64), _rank(n, x), n.const(1, I64)],
                    output_type=np.dtype(I64))
        repeats = n.op("Select", [n.op("Equal", [axes, n.const(axis, I64)]),
                                  n.const(tiles, I64), n.const(1, I64)])
    y = n.op("Tile", [x, repeats])
    y.node[mo_front.MO_FRONT] = mo_front.extracted(  # (MO's form, to legacy passes)
        "AttributedTile", "Tile", 1, "opset1", None, axis=axis, tiles=tiles)
    return [y]


@caffe_op("ArgMax")
def argmax(n: CaffeNode):
    """The top_k largest along `axis`, largest first: their indices, or with out_max_val their
    values. Without an axis each item is flattened to [N, 1, C*H*W], and out_max_val gives
    [N, 2, top_k]: the indices, then the values."""
    x, k = n.input(0), n.const(int(n.attr("top_k")), I64)
    with_values = bool(n.attr("out_max_val"))
    has_axis = n.has_attr("axis")
    if not has_axis:
        x = n.op("Reshape", [x, n.const([0, 1, -1], I64)], special_zero=True)
    top = n.op_node("TopK", [x, k], axis=int(n.attr("axis")) if has_axis else 2, mode="max",
                    sort="value", index_element_type=np.dtype(I64),
                    remove_values_output=not with_values)  # MO's mark (TopKNormalizer)
    values, indices = top.out_port(0), top.out_port(1)
    if not with_values:
        return [indices]
    if has_axis:
        return [values]
    as_float = n.op("Convert", [indices], destination_type=np.dtype(np.float32))
    return [n.op("Concat", [as_float, values], axis=1)]
