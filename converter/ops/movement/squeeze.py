"""Squeeze-1 and Unsqueeze-1: remove or insert size-1 axes.
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/shape/squeeze-1.html
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/shape/unsqueeze-1.html
"""

from __future__ import annotations

from converter.graph.shape import DYN, Shape
from converter.ops.movement._private import as_ints, axes_of
from converter.ops.op import Op

__all__ = ["Squeeze", "Unsqueeze"]


def squeezed(shape: Shape, axes) -> Shape | None:
    """Shape without the given axes (all known 1s when axes is None; None if unknowable)."""
    if axes is None:
        if DYN in shape:
            return None
        return tuple(d for d in shape if d != 1)
    drop = set(axes_of(axes, len(shape)))
    return tuple(d for i, d in enumerate(shape) if i not in drop)


def unsqueezed(shape: Shape, axes) -> Shape:
    """Shape with size-1 axes inserted at the given positions of the output."""
    rank = len(shape) + len(as_ints(axes))
    out: list[int] = []
    rest = iter(shape)
    new = set(axes_of(axes, rank))
    for i in range(rank):
        out.append(1 if i in new else next(rest))
    return tuple(out)


class Squeeze(Op):
    op = type = "Squeeze"
    version = "opset1"
    in_ports_count = 2

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        if shapes[0] is None or (len(values) > 1 and values[1] is None):
            return [None]
        return [squeezed(shapes[0], values[1] if len(values) > 1 else None)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        return [x.reshape(squeezed(x.shape, inputs[1] if len(inputs) > 1 else None))]


class Unsqueeze(Op):
    op = type = "Unsqueeze"
    version = "opset1"
    in_ports_count = 2

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        if shapes[0] is None or values[1] is None:
            axes_shape = shapes[1]
            count = 1 if axes_shape == () else axes_shape[0] if axes_shape else DYN
            if shapes[0] is None or count < 0:
                return [None]
            return [(DYN,) * (len(shapes[0]) + count)]
        return [unsqueezed(shapes[0], values[1])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        return [inputs[0].reshape(unsqueezed(inputs[0].shape, inputs[1]))]
