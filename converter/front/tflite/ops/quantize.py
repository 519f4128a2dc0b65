"""TensorFlow Lite QUANTIZE and DEQUANTIZE. Quantized tensors flow as float32 reals, so both
pass their input on: QUANTIZE's output is rounded onto its grid by the translator's finish
(also when it requantizes int8 to another scale); DEQUANTIZE of a float16 constant (weights
stored in half precision) converts it."""

from __future__ import annotations

import numpy as np

from converter.front.tflite.translator import TfliteNode, tflite_op


@tflite_op("QUANTIZE")
def quantize(n: TfliteNode):
    return [n.input(0)]


@tflite_op("DEQUANTIZE")
def dequantize(n: TfliteNode):
    x = n.input(0)
    if n.tensor(0).dtype == np.float16:
        return [n.folded("Convert", [x], destination_type=np.dtype(np.float32))]
    return [x]
