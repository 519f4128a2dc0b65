"""Reductions over an axes input: ReduceSum, ReduceMean, ReduceMax, ... https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/reduction/reduce-sum-1.html"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from converter.ops.op import Op
from converter.ops.reduce._private import axes_of, highest, lowest, reduced_shape


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


class ReduceSum(ReduceOp):
    op = type = "ReduceSum"
    version = "opset1"
    fn = staticmethod(lambda x, axes, keep: np.sum(x, axis=axes, keepdims=keep, dtype=x.dtype))


class ReduceProd(ReduceOp):
    op = type = "ReduceProd"
    version = "opset1"
    fn = staticmethod(lambda x, axes, keep: np.prod(x, axis=axes, keepdims=keep, dtype=x.dtype))


class ReduceMean(ReduceOp):
    op = type = "ReduceMean"
    version = "opset1"
    fn = staticmethod(_mean)


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
