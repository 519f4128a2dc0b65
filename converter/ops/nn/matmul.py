"""MatMul-1: batched matrix product with optional transposes. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/matrix/matmul-1.html"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from converter.graph.shape import DYN, broadcast
from converter.ops.native import kernels
from converter.ops.op import Op

if TYPE_CHECKING:
    from converter.ops.native.library import Kernels

__all__ = ["MatMul"]

_PACKED_BYTES = 64 << 20  # constant weights up to this size are packed for the native GEMM


def _swap(shape: tuple, flag: bool) -> tuple:
    return shape[:-2] + (shape[-1], shape[-2]) if flag and len(shape) >= 2 else shape


class MatMul(Op):
    op = type = "MatMul"
    version = "opset1"
    in_ports_count = 2
    attr_types = {"transpose_a": "bool", "transpose_b": "bool"}
    defaults = {"transpose_a": False, "transpose_b": False}
    same_type_inputs = 2

    @classmethod
    def check_inputs(cls, attrs, shapes, types, values):
        a, b = shapes[0], shapes[1]
        if a is not None and b is not None and len(a) and len(b):
            a = _swap(tuple(a), attrs["transpose_a"])
            b = _swap(tuple(b), attrs["transpose_b"])
            k_a, k_b = a[-1], b[-2] if len(b) > 1 else b[0]
            if min(k_a, k_b) >= 0 and k_a != k_b:
                return (f"inner dimensions differ: {list(a)} x {list(b)} "
                        f"({k_a} vs {k_b}, after transpose_a/transpose_b)")
        return super().check_inputs(attrs, shapes, types, values)

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        a, b = shapes
        if a is None or b is None:
            return [None]
        a, b = _swap(tuple(a), attrs["transpose_a"]), _swap(tuple(b), attrs["transpose_b"])
        a2, b2 = (1,) + a if len(a) == 1 else a, b + (1,) if len(b) == 1 else b
        out = broadcast(a2[:-2], b2[:-2]) + (a2[-2], b2[-1])
        if len(a) == 1:
            out = out[:-2] + out[-1:]
        if len(b) == 1:
            out = out[:-1]
        return [tuple(DYN if d < 0 else d for d in out)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        a, b = inputs
        if attrs["transpose_a"] and a.ndim >= 2:
            a = np.swapaxes(a, -1, -2)
        if attrs["transpose_b"] and b.ndim >= 2:
            b = np.swapaxes(b, -1, -2)
        if a.ndim > 2 and b.ndim == 2:  # one GEMM, not one per row block (a view is copied:
            # numpy's small GEMMs on strided blocks cost up to 2.7x the copy and one GEMM)
            rows = a.reshape(math.prod(a.shape[:-1]), a.shape[-1])
            return [np.matmul(rows, b).reshape(*a.shape[:-1], b.shape[-1])]
        return [np.matmul(a, b)]

    @classmethod
    def plan(cls, attrs, values, used):
        b = values[1]
        native = kernels() if b is not None and b.dtype == np.float32 else None
        if (native is None or b.ndim != 2 or attrs["transpose_a"] or 0 in b.shape
                or b.nbytes > _PACKED_BYTES):
            return super().plan(attrs, values, used)
        return NativeMatMul(b.T if attrs["transpose_b"] else b, native)


class NativeMatMul:
    """MatMul by constant float32 weights w [K, N] through the native GEMM: w packed once, the
    data's rows [..., K] multiplied as one matrix, on the native kernels' threads."""

    def __init__(self, w: np.ndarray, native: Kernels) -> None:
        self.native, self.k, self.n = native, *w.shape
        self.packed = native.pack_columns(np.ascontiguousarray(w))
        self.w = w

    def __call__(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        a = inputs[0]
        if a.dtype != np.float32 or a.ndim == 0 or a.shape[-1] != self.k:
            return [np.matmul(a, self.w)]  # numpy's errors and promotions
        out = np.empty((*a.shape[:-1], self.n), np.float32)
        rows = np.ascontiguousarray(a).reshape(-1, self.k)
        self.native.gemm_packed_b(rows, self.packed, out.reshape(-1, self.n), None, False)
        return [out]
