"""Comparison ops (opset1) with boolean outputs: Equal, NotEqual, Less, ... https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/comparison/equal-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.elementwise._base import BinaryOp

__all__ = ["Equal", "Greater", "GreaterEqual", "Less", "LessEqual", "NotEqual"]


class _Comparison(BinaryOp):
    result_type = np.dtype(np.bool_)


class Equal(_Comparison):
    op = type = "Equal"
    version = "opset1"
    fn = staticmethod(np.equal)


class NotEqual(_Comparison):
    op = type = "NotEqual"
    version = "opset1"
    fn = staticmethod(np.not_equal)


class Less(_Comparison):
    op = type = "Less"
    version = "opset1"
    fn = staticmethod(np.less)


class LessEqual(_Comparison):
    op = type = "LessEqual"
    version = "opset1"
    fn = staticmethod(np.less_equal)


class Greater(_Comparison):
    op = type = "Greater"
    version = "opset1"
    fn = staticmethod(np.greater)


class GreaterEqual(_Comparison):
    op = type = "GreaterEqual"
    version = "opset1"
    fn = staticmethod(np.greater_equal)
