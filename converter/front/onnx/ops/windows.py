"""ONNX HannWindow, HammingWindow and BlackmanWindow (opset 17): sums of cosines of 2*pi*k*n/N
over n in [0, size), N = size (periodic) or size - 1 (symmetric)."""

from __future__ import annotations

import numpy as np
from onnx import helper

from converter.front.onnx.translator import OnnxNode, onnx_op

# window -> the cosine coefficients a_k of sum_k (-1)^k a_k cos(2 pi k n / N)
_COEFFS = {"HannWindow": (0.5, 0.5), "HammingWindow": (25 / 46, 21 / 46),
           "BlackmanWindow": (0.42, 0.5, 0.08)}


@onnx_op("HannWindow", "HammingWindow", "BlackmanWindow", since=17)
def cosine_window(n: OnnxNode):
    f32 = np.dtype(np.float32)
    size = n.op("Convert", [n.input(0)], destination_type=f32)
    steps = n.op("Range", [np.float32(0), size, np.float32(1)], output_type=f32)
    span = size if n.attr("periodic", 1) else n.op("Subtract", [size, np.float32(1)])
    phase = n.op("Divide", [n.op("Multiply", [steps, np.float32(2 * np.pi)]), span])
    coeffs = _COEFFS[n.op_type]
    y = n.const(np.float32(coeffs[0]))
    for k, a in enumerate(coeffs[1:], start=1):
        term = n.op("Multiply", [n.op("Cos", [n.op("Multiply", [phase, np.float32(k)])]),
                                 np.float32(a * (-1) ** k)])
        y = n.op("Add", [y, term])
    dtype = helper.tensor_dtype_to_np_dtype(int(n.attr("output_datatype", 1)))
    return [n.op("Convert", [y], destination_type=np.dtype(dtype))]
