"""Logical (opset1) and bitwise (opset13, shifts opset15) ops. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/logical/logical-and-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.elementwise._base import BinaryOp, UnaryOp

__all__ = [
    "BitwiseAnd", "BitwiseLeftShift", "BitwiseNot", "BitwiseOr", "BitwiseRightShift",
    "BitwiseXor", "LogicalAnd", "LogicalNot", "LogicalOr", "LogicalXor",
]

_BOOL = np.dtype(np.bool_)


class LogicalAnd(BinaryOp):
    op = type = "LogicalAnd"
    version = "opset1"
    result_type = _BOOL
    fn = staticmethod(np.logical_and)


class LogicalOr(BinaryOp):
    op = type = "LogicalOr"
    version = "opset1"
    result_type = _BOOL
    fn = staticmethod(np.logical_or)


class LogicalXor(BinaryOp):
    op = type = "LogicalXor"
    version = "opset1"
    result_type = _BOOL
    fn = staticmethod(np.logical_xor)


class LogicalNot(UnaryOp):
    op = type = "LogicalNot"
    version = "opset1"
    fn = staticmethod(np.logical_not)

    @classmethod
    def infer_types(cls, attrs, types):
        return [_BOOL]


class BitwiseAnd(BinaryOp):
    op = type = "BitwiseAnd"
    version = "opset13"
    fn = staticmethod(np.bitwise_and)


class BitwiseOr(BinaryOp):
    op = type = "BitwiseOr"
    version = "opset13"
    fn = staticmethod(np.bitwise_or)


class BitwiseXor(BinaryOp):
    op = type = "BitwiseXor"
    version = "opset13"
    fn = staticmethod(np.bitwise_xor)


class BitwiseNot(UnaryOp):
    """BitwiseNot-13: ~x (logical not for boolean tensors)."""

    op = type = "BitwiseNot"
    version = "opset13"
    fn = staticmethod(np.invert)


class BitwiseLeftShift(BinaryOp):
    op = type = "BitwiseLeftShift"
    version = "opset15"
    fn = staticmethod(lambda a, b: np.left_shift(a, b.astype(a.dtype, copy=False)))


class BitwiseRightShift(BinaryOp):
    op = type = "BitwiseRightShift"
    version = "opset15"
    fn = staticmethod(lambda a, b: np.right_shift(a, b.astype(a.dtype, copy=False)))
