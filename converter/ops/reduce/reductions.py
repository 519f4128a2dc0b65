"""Reductions over an axes input: ReduceSum, ReduceMean, ReduceMax, ... https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/reduction/reduce-sum-1.html"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from converter.ops.native import kernels
from converter.ops.op import Op
from converter.ops.reduce._private import axes_of, highest, lowest, reduced_shape

if TYPE_CHECKING:
    from converter.ops.native.library import Kernels

_NATIVE_ROW = 4096  # values per row up to which the native sums (16 running sums) stay accurate


class ReduceOp(Op):
    """y = fn(x, axes, keep_dims); an empty axes tensor leaves x unchanged. Subclasses set `fn`."""

    in_ports_count = 2
    attr_types = {"keep_dims": "bool"}
    defaults = {"keep_dims": False}
    fn: ClassVar = None

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [reduced_shape(shapes[0], shapes[1], values[1], bool(attrs["keep_dims"]))]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = np.asarray(inputs[0])
        axes = axes_of(inputs[1], x.ndim)
        return [cls.fn(x, axes, bool(attrs["keep_dims"]))]


def _max(x: np.ndarray, axes: tuple, keep: bool) -> np.ndarray:
    return np.max(x, axis=axes, keepdims=keep, initial=lowest(x.dtype))


def _min(x: np.ndarray, axes: tuple, keep: bool) -> np.ndarray:
    return np.min(x, axis=axes, keepdims=keep, initial=highest(x.dtype))


def _mean(x: np.ndarray, axes: tuple, keep: bool) -> np.ndarray:
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    total = np.sum(x, axis=axes, keepdims=keep, dtype=np.float64 if x.dtype.kind != "f" else None)
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / count if x.dtype.kind == "f" else np.trunc(total / count)


def _l2(x: np.ndarray, axes: tuple, keep: bool) -> np.ndarray:
    return np.sqrt(np.sum(np.square(x), axis=axes, keepdims=keep))


class _TrailingSums:
    """ReduceSum or ReduceMean (`mean`) of float32 data over its trailing axes, up to
    _NATIVE_ROW values each (global average pooling), by the native row sums; else fn."""

    def __init__(self, fn, axes: np.ndarray, keep: bool, mean: bool, native: Kernels) -> None:
        self.fn, self.axes, self.keep, self.mean, self.native = fn, axes, keep, mean, native

    def __call__(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        x = inputs[0]
        axes = axes_of(self.axes, x.ndim) if x.ndim else ()
        lead = x.ndim - len(axes)
        n = math.prod(x.shape[lead:])
        if (x.dtype != np.float32 or not axes or axes != tuple(range(lead, x.ndim))
                or not 0 < n <= _NATIVE_ROW):
            return [self.fn(x, axes, self.keep)]
        sums = self.native.row_sums(np.ascontiguousarray(x).reshape(-1, n),
                                    n if self.mean else 1)
        return [sums.reshape(x.shape[:lead] + (1,) * len(axes) * self.keep)]


class _Summing(ReduceOp):
    """ReduceSum and ReduceMean: a native path for trailing axes where the axes are constant."""

    mean: ClassVar = False

    @classmethod
    def plan(cls, attrs, values, used):
        native = kernels()
        if native is None or values[1] is None:
            return super().plan(attrs, values, used)
        return _TrailingSums(cls.fn, values[1], bool(attrs["keep_dims"]), cls.mean, native)


class ReduceSum(_Summing):
    op = type = "ReduceSum"
    version = "opset1"
    fn = staticmethod(lambda x, axes, keep: np.sum(x, axis=axes, keepdims=keep, dtype=x.dtype))


class ReduceProd(ReduceOp):
    op = type = "ReduceProd"
    version = "opset1"
    fn = staticmethod(lambda x, axes, keep: np.prod(x, axis=axes, keepdims=keep, dtype=x.dtype))


class ReduceMean(_Summing):
    op = type = "ReduceMean"
    version = "opset1"
    fn = staticmethod(_mean)
    mean = True


class ReduceMax(ReduceOp):
    op = type = "ReduceMax"
    version = "opset1"
    fn = staticmethod(_max)


class ReduceMin(ReduceOp):
    op = type = "ReduceMin"
    version = "opset1"
    fn = staticmethod(_min)


class ReduceL1(ReduceOp):
    op = type = "ReduceL1"
    version = "opset4"
    fn = staticmethod(lambda x, axes, keep: np.sum(np.abs(x), axis=axes, keepdims=keep))


class ReduceL2(ReduceOp):
    op = type = "ReduceL2"
    version = "opset4"
    fn = staticmethod(_l2)


class ReduceLogicalAnd(ReduceOp):
    op = type = "ReduceLogicalAnd"
    version = "opset1"
    fn = staticmethod(lambda x, axes, keep: np.all(x, axis=axes, keepdims=keep))


class ReduceLogicalOr(ReduceOp):
    op = type = "ReduceLogicalOr"
    version = "opset1"
    fn = staticmethod(lambda x, axes, keep: np.any(x, axis=axes, keepdims=keep))
