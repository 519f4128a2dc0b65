"""Transpose-1: permutes the axes; an empty order reverses them. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/transpose-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.movement._private import axes_of, dynamic_like
from converter.ops.op import Op

__all__ = ["Transpose"]


def _order(order: np.ndarray, rank: int) -> list[int]:
    return axes_of(order, rank) if np.asarray(order).size else list(range(rank))[::-1]


class Transpose(Op):
    op = type = "Transpose"
    version = "opset1"
    in_ports_count = 2

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        shape = shapes[0]
        if shape is None or values[1] is None:
            return [dynamic_like(shape)]
        return [tuple(shape[a] for a in _order(values[1], len(shape)))]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        return [np.transpose(x, _order(inputs[1], x.ndim))]
