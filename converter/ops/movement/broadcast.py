"""Broadcast-3: replicates data to a target shape (numpy, explicit or bidirectional rules). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/broadcast-3.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import broadcast
from converter.ops.movement._private import as_ints, unknown_of_length
from converter.ops.op import Op

__all__ = ["Broadcast"]


def _explicit_view(shape: tuple, target: list[int], axes_mapping: list[int]) -> tuple:
    """Data shape lifted to the target rank: its dims at axes_mapping, 1 elsewhere."""
    lifted = [1] * len(target)
    for d, a in zip(shape, axes_mapping, strict=True):
        lifted[a] = d
    return tuple(lifted)


class Broadcast(Op):
    op = type = "Broadcast"
    version = "opset3"
    in_ports_count = 3
    attr_types = {"mode": "str"}
    defaults = {"mode": "numpy"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        if values[1] is None:
            out = unknown_of_length(shapes[1])
            if attrs["mode"] == "bidirectional" and out is not None and shapes[0] is not None:
                out = (-1,) * max(len(out), len(shapes[0]))
            return [out]
        target = tuple(as_ints(values[1]))
        if attrs["mode"] == "bidirectional":
            return [broadcast(shapes[0], target)]
        return [target]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, target = inputs[0], as_ints(inputs[1])
        mode = attrs["mode"]
        if mode == "bidirectional":
            target = list(np.broadcast_shapes(x.shape, tuple(target)))
        elif mode == "explicit":
            x = x.reshape(_explicit_view(x.shape, target, as_ints(inputs[2])))
        # a copy, not ascontiguousarray: that makes a scalar result 1-D
        return [np.broadcast_to(x, target).copy()]
