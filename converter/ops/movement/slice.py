"""Slice-8: start/stop/step slicing along given (or leading) axes. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/slice-8.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.movement._private import as_ints, axes_of, index_shape
from converter.ops.op import Op

__all__ = ["Slice"]


def _index(rank: int, start, stop, step, axes) -> tuple:
    """A tuple of slices, one per data axis, from the Slice inputs."""
    start, stop, step = as_ints(start), as_ints(stop), as_ints(step)
    axes = axes_of(axes, rank) if axes is not None else list(range(len(start)))
    index = [slice(None)] * rank
    for a, b, e, s in zip(axes, start, stop, step, strict=True):
        index[a] = slice(b, e, s)
    return tuple(index)


class Slice(Op):
    op = type = "Slice"
    version = "opset8"
    in_ports_count = 5

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        shape = shapes[0]
        if shape is None:
            return [None]
        axes = values[4] if len(values) > 4 else None
        if any(v is None for v in values[1:]):
            sliced = axes_of(axes, len(shape)) if axes is not None else range(len(shape))
            return [tuple(DYN if i in sliced else d for i, d in enumerate(shape))]
        return [index_shape(shape, _index(len(shape), *values[1:4], axes))]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        axes = inputs[4] if len(inputs) > 4 else None
        return [np.ascontiguousarray(x[_index(x.ndim, *inputs[1:4], axes)])]
