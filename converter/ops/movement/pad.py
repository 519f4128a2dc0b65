"""Pad-12: pads (or crops, for negative pads) with constant, edge, reflect or symmetric values. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/pad-12.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.movement._private import as_ints, dynamic_like
from converter.ops.op import Op

__all__ = ["Pad"]


class Pad(Op):
    op = type = "Pad"
    version = "opset12"
    in_ports_count = 4
    attr_types = {"pad_mode": "str"}
    defaults = {"pad_mode": "constant"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        shape = shapes[0]
        if shape is None or values[1] is None or values[2] is None:
            return [dynamic_like(shape)]
        begin, end = as_ints(values[1]), as_ints(values[2])
        grown = zip(shape, begin, end, strict=True)
        return [tuple(DYN if d < 0 else d + b + e for d, b, e in grown)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        begin, end = as_ints(inputs[1]), as_ints(inputs[2])
        grow = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end, strict=True)]
        mode = attrs["pad_mode"]
        if mode == "constant":
            value = inputs[3] if len(inputs) > 3 else 0
            fill = np.asarray(value, x.dtype).item()
            out = np.pad(x, grow, mode="constant", constant_values=fill)
        else:
            out = np.pad(x, grow, mode=mode)
        crop = tuple(slice(max(-b, 0), out.shape[i] - max(-e, 0))
                     for i, (b, e) in enumerate(zip(begin, end, strict=True)))
        return [np.ascontiguousarray(out[crop])]
