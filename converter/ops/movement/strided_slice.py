"""StridedSlice-1: numpy-style slicing with begin/end masks, new and shrunk axes, ellipsis. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/strided-slice-1.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.movement._private import as_ints, index_shape
from converter.ops.op import Op

__all__ = ["MO_CROP", "StridedSlice", "strided_index"]

# on a Kaldi StridedSlice MO's graph held as a Crop: its (offset, dim) along axis 1
MO_CROP = "mo_crop"


def _bit(mask: list[int], i: int) -> bool:
    return i < len(mask) and bool(mask[i])


def strided_index(attrs: dict, begin: list[int], end: list[int], strides: list[int]) -> tuple:
    """The numpy index (slices, ints, None, Ellipsis) the masks and bounds describe."""
    index: list = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides, strict=True)):
        if _bit(attrs["ellipsis_mask"], i):
            index.append(Ellipsis)
        elif _bit(attrs["new_axis_mask"], i):
            index.append(None)
        elif _bit(attrs["shrink_axis_mask"], i):
            index.append(b)
        else:
            start = None if _bit(attrs["begin_mask"], i) else b
            stop = None if _bit(attrs["end_mask"], i) else e
            index.append(slice(start, stop, s))
    return tuple(index)


def _bounds(values: list) -> tuple[list[int], list[int], list[int]] | None:
    """begin, end and strides (default 1) from the input values; None when not constant."""
    if values[1] is None or values[2] is None or (len(values) > 3 and values[3] is None):
        return None
    strides = as_ints(values[3]) if len(values) > 3 else None
    begin, end = as_ints(values[1]), as_ints(values[2])
    return begin, end, strides or [1] * len(begin)


def _unbounded_shape(attrs: dict, shape: tuple, count: int) -> tuple:
    """x[index]'s shape when the bounds are not constants (a loop's x[:, i]): the rank, and
    the dims taken whole (both masks set); the other sliced dims are dynamic."""
    index = strided_index(attrs, [0] * count, [0] * count, [1] * count)
    whole = tuple(slice(None) if isinstance(i, slice) else i for i in index)
    empty = tuple(slice(0, 0) if isinstance(i, slice) and not _whole(attrs, k) else i
                  for k, i in enumerate(whole))
    return tuple(a if a == b else DYN
                 for a, b in zip(index_shape(shape, whole), index_shape(shape, empty),
                                 strict=True))


def _whole(attrs: dict, i: int) -> bool:
    return _bit(attrs["begin_mask"], i) and _bit(attrs["end_mask"], i)


class StridedSlice(Op):
    op = type = "StridedSlice"
    version = "opset1"
    in_ports_count = 4
    attr_types = {
        "begin_mask": "ints", "end_mask": "ints", "new_axis_mask": "ints",
        "shrink_axis_mask": "ints", "ellipsis_mask": "ints",
    }
    defaults = {
        "begin_mask": [], "end_mask": [], "new_axis_mask": [], "shrink_axis_mask": [],
        "ellipsis_mask": [],
    }

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        bounds = _bounds(values)
        if shapes[0] is not None and bounds is None and shapes[1] and shapes[1][0] >= 0:
            return [_unbounded_shape(attrs, shapes[0], shapes[1][0])]
        if shapes[0] is None or bounds is None:
            return [None]
        return [index_shape(shapes[0], strided_index(attrs, *bounds))]

    @classmethod
    def evaluate(cls, attrs, inputs):
        index = strided_index(attrs, *_bounds(inputs))
        # np.array, not ascontiguousarray: a fully shrunk slice stays 0-d (tf.shape(x)[0])
        return [np.array(inputs[0][index])]
