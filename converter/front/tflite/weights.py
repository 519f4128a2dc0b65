"""Quantized constants (int8 weights, int32 biases) kept as integers in the IR, dequantized by
Convert, Subtract and Multiply marked `keep_unfolded`: OpenVINO reads that form as int8
weights, constant folding leaves it, and --compress_to_fp16 leaves its scales in float32, so
the weights keep exactly their real values (FP16 would move sums across rounding ties)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from converter.front.tflite.model import TensorInfo
from converter.graph.port import Port

__all__ = ["dequantized_const"]

# op(type, inputs, **attrs) -> its port 0; inputs are ports or numpy values (made Consts)
Builder = Callable[..., Port]


def _compact(a: np.ndarray) -> np.ndarray:
    """a reduced to one element along every axis it does not vary on (it broadcasts back)."""
    for axis in range(a.ndim):
        first = a.take([0], axis=axis)
        if np.array_equal(a, np.broadcast_to(first, a.shape)):
            a = first
    return a.reshape(()) if a.size == 1 else a


def dequantized_const(op: Builder, t: TensorInfo,
                      transform: Callable[[np.ndarray], np.ndarray] = np.asarray) -> Port:
    """t's integers, after transform (a reshape or transpose of its array), as reals."""
    q = t.quantization
    shape = t.data.shape

    def per_element(values: np.ndarray) -> np.ndarray:
        full = np.broadcast_to(q.along(values, len(shape)), shape)
        return _compact(np.ascontiguousarray(transform(full)))

    data = np.ascontiguousarray(transform(t.data))
    y = op("Convert", [data], destination_type=np.dtype(np.float32), keep_unfolded=True)
    if np.any(q.zero_point):
        y = op("Subtract", [y, per_element(q.zero_point.astype(np.float32))],
               keep_unfolded=True)
    return op("Multiply", [y, per_element(q.scale.astype(np.float32))], keep_unfolded=True)
