"""Tile-1: repeats a tensor along each axis. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/tile-1.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.movement._private import as_ints
from converter.ops.op import Op

__all__ = ["Tile"]


class Tile(Op):
    op = type = "Tile"
    version = "opset1"
    in_ports_count = 2

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        shape = shapes[0]
        if shape is None or values[1] is None:
            count = shapes[1][0] if shapes[1] else DYN
            return [None if shape is None or count < 0 else (DYN,) * max(len(shape), count)]
        repeats = as_ints(values[1])
        rank = max(len(shape), len(repeats))
        shape = (1,) * (rank - len(shape)) + tuple(shape)
        repeats = [1] * (rank - len(repeats)) + repeats
        return [tuple(DYN if d < 0 else d * r for d, r in zip(shape, repeats, strict=True))]

    @classmethod
    def evaluate(cls, attrs, inputs):
        return [np.tile(inputs[0], as_ints(inputs[1]))]
