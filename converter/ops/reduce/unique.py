"""Unique-10: unique elements (or slices along an axis) with indices and counts. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/unique-10.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN, normalize_axis
from converter.ops.op import Op
from converter.ops.reduce._private import scalar_int


class Unique(Op):
    op = type = "Unique"
    version = "opset10"
    in_ports_count = 2
    out_ports_count = 4
    attr_types = {"sorted": "bool", "index_element_type": "type", "count_element_type": "type"}
    defaults = {
        "sorted": True, "index_element_type": np.dtype(np.int64),
        "count_element_type": np.dtype(np.int64),
    }

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        shape = shapes[0]
        if len(shapes) < 2:
            return [(DYN,), (DYN,), (DYN,), (DYN,)]
        if shape is None or values[1] is None:
            return [None if shape is None else (DYN,) * len(shape), (DYN,), (DYN,), (DYN,)]
        axis = normalize_axis(scalar_int(values[1]), len(shape))
        out = shape[:axis] + (DYN,) + shape[axis + 1:]
        return [out, (DYN,), (shape[axis],), (DYN,)]

    @classmethod
    def infer_types(cls, attrs, types):
        index = np.dtype(attrs["index_element_type"])
        return [types[0], index, index, np.dtype(attrs["count_element_type"])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = np.asarray(inputs[0])
        axis = normalize_axis(scalar_int(inputs[1]), x.ndim) if len(inputs) > 1 else None
        values, first, inverse, counts = np.unique(
            x if axis is not None else x.ravel(), return_index=True, return_inverse=True,
            return_counts=True, axis=axis,
        )
        inverse = inverse.reshape(-1)
        if not attrs["sorted"]:
            order = np.argsort(first, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            values = np.take(values, order, axis=0 if axis is None else axis)
            first, counts, inverse = first[order], counts[order], rank[inverse]
        return [values, first, inverse, counts]
