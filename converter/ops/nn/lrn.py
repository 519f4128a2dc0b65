"""LRN-1: local response normalization over a window along given axes. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/normalization/lrn-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.nn._window import scratch
from converter.ops.op import Op

__all__ = ["LRN"]


def _window_sum(x: np.ndarray, axis: int, size: int) -> np.ndarray:
    """Sum of x over [i - (size-1)//2, i + size//2] along axis, clipped to the edges: x copied
    once between zeros, then one shifted add per window position (fewer passes than a
    cumulative sum for small windows); the sums lie in scratch memory."""
    before, n = (size - 1) // 2, x.shape[axis]
    lead = (slice(None),) * axis
    shape = list(x.shape)
    shape[axis] = n + size - 1
    padded = scratch("lrn.padded", shape, x.dtype)
    padded[(*lead, slice(0, before))] = 0
    padded[(*lead, slice(before + n, None))] = 0
    padded[(*lead, slice(before, before + n))] = x
    total = scratch("lrn.sum", x.shape, x.dtype)
    total[...] = padded[(*lead, slice(0, n))]
    for shift in range(1, size):
        np.add(total, padded[(*lead, slice(shift, shift + n))], out=total)
    return total


def _power(t: np.ndarray, beta: float) -> np.ndarray:
    """t ** beta in place; square roots for 0.5 and 0.75 (a quarter of np.power's time)."""
    if beta == 0.75:
        root = np.sqrt(t)
        return np.sqrt(np.multiply(t, root, out=t), out=t)
    if beta == 0.5:
        return np.sqrt(t, out=t)
    return np.power(t, t.dtype.type(beta), out=t)


class LRN(Op):
    op = type = "LRN"
    version = "opset1"
    in_ports_count = 2
    attr_types = {"alpha": "float", "beta": "float", "bias": "float", "size": "int"}
    defaults = {"alpha": 1e-4, "beta": 0.75, "bias": 1.0, "size": 5}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, axes = inputs[0], sorted({int(a) % inputs[0].ndim for a in np.ravel(inputs[1])})
        size = attrs["size"]
        wide = np.float64 if x.dtype.itemsize > 4 or x.dtype.kind != "f" else np.float32
        total = np.square(x, dtype=wide, out=scratch("lrn.square", x.shape, wide))
        for axis in axes:
            total = _window_sum(total, axis, size)
        total *= wide(attrs["alpha"] / size ** len(axes))
        total += wide(attrs["bias"])
        result = np.empty(x.shape, x.dtype)
        np.divide(x, _power(total, attrs["beta"]), dtype=wide, out=result, casting="unsafe")
        return [result]
