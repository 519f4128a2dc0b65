"""LRN-1: local response normalization over a window along given axes. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/normalization/lrn-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["LRN"]


def _window_sum(x: np.ndarray, axis: int, size: int) -> np.ndarray:
    """Sum of x over [i - (size-1)//2, i + size//2] along axis, clipped to the edges: one
    shifted add per window position (fewer passes than a cumulative sum for small windows)."""
    before, n = (size - 1) // 2, x.shape[axis]
    total = np.zeros_like(x)
    for shift in range(-before, size - before):
        lo, hi = max(0, -shift), min(n, n - shift)  # total[lo:hi] += x[lo+shift:hi+shift]
        if lo < hi:
            dst = [slice(None)] * x.ndim
            src = list(dst)
            dst[axis], src[axis] = slice(lo, hi), slice(lo + shift, hi + shift)
            total[tuple(dst)] += x[tuple(src)]
    return total


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
        total = np.square(x.astype(wide))
        for axis in axes:
            total = _window_sum(total, axis, size)
        total *= wide(attrs["alpha"] / size ** len(axes))
        total += wide(attrs["bias"])
        return [(x / np.power(total, wide(attrs["beta"]), out=total)).astype(x.dtype)]
