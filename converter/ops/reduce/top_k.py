"""TopK-11: the k largest or smallest elements along an axis, with their indices. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sort/top-k-11.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN, normalize_axis
from converter.ops.op import Op
from converter.ops.reduce._private import scalar_int


def _descending_order(x: np.ndarray, axis: int) -> np.ndarray:
    """Indices sorting x descending along axis; equal values keep their input order."""
    size = x.shape[axis]
    flipped = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return size - 1 - np.flip(flipped, axis)


class TopK(Op):
    op = type = "TopK"
    version = "opset11"
    in_ports_count = 2
    out_ports_count = 2
    attr_types = {
        "axis": "int", "mode": "str", "sort": "str", "index_element_type": "type", "stable": "bool",
    }
    defaults = {"index_element_type": np.dtype(np.int32), "stable": False}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        shape = shapes[0]
        if shape is None:
            return [None, None]
        axis = normalize_axis(attrs["axis"], len(shape))
        k = DYN if values[1] is None else scalar_int(values[1])
        if k >= 0 and shape[axis] >= 0:
            k = min(k, shape[axis])
        out = shape[:axis] + (k,) + shape[axis + 1:]
        return [out, out]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0], np.dtype(attrs["index_element_type"])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = np.asarray(inputs[0])
        axis = normalize_axis(attrs["axis"], x.ndim)
        k = min(scalar_int(inputs[1]), x.shape[axis])
        if attrs["mode"] == "max":
            order = _descending_order(x, axis)
        else:
            order = np.argsort(x, axis=axis, kind="stable")
        indices = np.take(order, np.arange(k), axis=axis)
        if attrs["sort"] == "index":
            indices = np.sort(indices, axis=axis)
        values = np.take_along_axis(x, indices, axis=axis)
        return [values, indices.astype(attrs["index_element_type"])]
