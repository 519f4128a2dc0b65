"""FakeQuantize-1: maps x onto `levels` evenly spaced values between the output bounds. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/quantization/fake-quantize-1.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import broadcast
from converter.ops.op import Op

__all__ = ["FakeQuantize"]


class FakeQuantize(Op):
    """Inputs X, input_low, input_high, output_low, output_high (broadcast to X)."""

    op = type = "FakeQuantize"
    version = "opset1"
    in_ports_count = 5
    same_type_inputs = 5
    attr_types = {"levels": "int", "auto_broadcast": "str"}
    defaults = {"auto_broadcast": "numpy"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        shape = shapes[0]
        for other in shapes[1:]:
            shape = broadcast(shape, other)
        return [shape]

    @classmethod
    def evaluate(cls, attrs, inputs):
        dtype = np.asarray(inputs[0]).dtype  # computed in float64: ties round as in ONNX
        x, in_low, in_high, out_low, out_high = (np.asarray(v, np.float64) for v in inputs)
        steps = attrs["levels"] - 1
        with np.errstate(all="ignore"):
            q = np.rint((x - in_low) / (in_high - in_low) * steps) / steps
            y = q * (out_high - out_low) + out_low
        y = np.where(x <= np.minimum(in_low, in_high), out_low, y)
        y = np.where(x > np.maximum(in_low, in_high), out_high, y)
        return [y.astype(dtype)]
