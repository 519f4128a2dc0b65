"""LRN-1: local response normalization over a window along given axes. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/normalization/lrn-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["LRN"]


def _window_sum(x: np.ndarray, axis: int, size: int) -> np.ndarray:
    """Sum of x over [i - (size-1)//2, i + size//2] along axis, clipped to the edges."""
    before, after = (size - 1) // 2, size // 2
    pad = [(0, 0)] * x.ndim
    pad[axis] = (before + 1, after)
    c = np.cumsum(np.pad(x, pad), axis=axis)
    n = x.shape[axis]
    return np.take(c, np.arange(size, size + n), axis) - np.take(c, np.arange(n), axis)


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
        total = np.square(x.astype(np.float64))
        for axis in axes:
            total = _window_sum(total, axis, size)
        scale = attrs["bias"] + attrs["alpha"] / size ** len(axes) * total
        return [(x / scale ** attrs["beta"]).astype(x.dtype)]
