"""Split-1 and VariadicSplit-1: cut a tensor along an axis into equal or given parts.
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/split-1.html
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/variadic-split-1.html
"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN, Shape, normalize_axis
from converter.ops.movement._private import as_ints, dynamic_like
from converter.ops.op import Op

__all__ = ["Split", "VariadicSplit"]

# infer_types sees no input values, so VariadicSplit types as many outputs as it could have
_MAX_PARTS = 256


def _split_shapes(shape: Shape | None, axis: np.ndarray | None, lengths: list[int] | None,
                  count: int) -> list[Shape | None]:
    """Output shapes for parts of `lengths` along axis (DYN parts when unknown)."""
    if shape is None:
        return [None] * count
    if axis is None:
        return [dynamic_like(shape)] * count
    a = normalize_axis(int(axis), len(shape))
    parts = lengths or [DYN] * count
    return [shape[:a] + (n,) + shape[a + 1:] for n in parts]


def _resolve(lengths: list[int], total: int) -> list[int]:
    """Fill in the one -1 length from the total (DYN when the total is unknown)."""
    if -1 not in lengths:
        return lengths
    rest = total - sum(n for n in lengths if n != -1)
    return [(rest if total >= 0 else DYN) if n == -1 else n for n in lengths]


def _cut(x: np.ndarray, axis: int, lengths: list[int]) -> list[np.ndarray]:
    a = normalize_axis(axis, x.ndim)
    bounds = np.cumsum(lengths)[:-1]
    return [np.ascontiguousarray(p) for p in np.split(x, bounds, axis=a)]


class Split(Op):
    op = type = "Split"
    version = "opset1"
    in_ports_count = 2
    attr_types = {"num_splits": "int"}
    defaults = {"num_splits": 1}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        n, shape = attrs["num_splits"], shapes[0]
        lengths = None
        if shape is not None and values[1] is not None:
            d = shape[normalize_axis(int(values[1]), len(shape))]
            lengths = [d // n if d >= 0 else DYN] * n
        return _split_shapes(shape, values[1], lengths, n)

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0]] * attrs["num_splits"]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, axis, n = inputs[0], int(inputs[1]), attrs["num_splits"]
        size = x.shape[normalize_axis(axis, x.ndim)]
        return _cut(x, axis, [size // n] * n)


class VariadicSplit(Op):
    op = type = "VariadicSplit"
    version = "opset1"
    in_ports_count = 3

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        shape, axis, lengths = shapes[0], values[1], values[2]
        count = shapes[2][0] if shapes[2] and shapes[2][0] >= 0 else 1
        if lengths is not None:
            lengths = as_ints(lengths)
            count = len(lengths)
            if shape is not None and axis is not None:
                total = shape[normalize_axis(int(axis), len(shape))]
                lengths = _resolve(lengths, total)
        return _split_shapes(shape, axis, lengths, count)

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0]] * _MAX_PARTS

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, axis = inputs[0], int(inputs[1])
        total = x.shape[normalize_axis(axis, x.ndim)]
        return _cut(x, axis, _resolve(as_ints(inputs[2]), total))
