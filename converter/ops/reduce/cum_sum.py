"""CumSum-3: cumulative sum along an axis, optionally exclusive and/or reversed. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/arithmetic/cumsum-3.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import normalize_axis
from converter.ops.op import Op
from converter.ops.reduce._private import scalar_int


def _shift_right(x: np.ndarray, axis: int) -> np.ndarray:
    """x moved one step along axis, a zero entering first (inclusive -> exclusive sums)."""
    out = np.zeros_like(x)
    size = x.shape[axis]
    dst = [slice(None)] * x.ndim
    src = [slice(None)] * x.ndim
    dst[axis], src[axis] = slice(1, size), slice(0, max(size - 1, 0))
    out[tuple(dst)] = x[tuple(src)]
    return out


class CumSum(Op):
    op = type = "CumSum"
    version = "opset3"
    in_ports_count = 2
    attr_types = {"exclusive": "bool", "reverse": "bool"}
    defaults = {"exclusive": False, "reverse": False}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = np.asarray(inputs[0])
        axis = normalize_axis(scalar_int(inputs[1]) if len(inputs) > 1 else 0, x.ndim)
        if attrs["reverse"]:
            x = np.flip(x, axis)
        out = np.cumsum(x, axis=axis, dtype=x.dtype)
        if attrs["exclusive"]:
            out = _shift_right(out, axis)
        if attrs["reverse"]:
            out = np.flip(out, axis)
        return [out]
