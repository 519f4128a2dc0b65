"""Binary arithmetic ops (opset1): Add, Subtract, Multiply, Divide, Power, ... https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/arithmetic/add-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.elementwise._base import BinaryOp

__all__ = [
    "Add", "Divide", "FloorMod", "Maximum", "Minimum", "Mod", "Multiply", "Power",
    "SquaredDifference", "Subtract",
]


def _is_int(x: np.ndarray) -> bool:
    return x.dtype.kind in "iu"


def _divide(a: np.ndarray, b: np.ndarray, python_div: bool) -> np.ndarray:
    """Float: true division. Integer: floor (python_div) or truncation toward zero."""
    if not _is_int(a):
        return np.true_divide(a, b)
    q = np.floor_divide(a, b)
    if python_div:
        return q
    # floor -> trunc: one up where the division is inexact and the signs differ
    return q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)))


def _power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy power; integer bases with negative exponents give the truncated 1 / a**-b."""
    if not _is_int(a):
        return np.power(a, b)
    b = b.astype(a.dtype, copy=False)
    neg = b < 0
    out = np.power(a, np.where(neg, 0, b).astype(a.dtype))
    if not neg.any():
        return out
    inverse = np.where(np.abs(a) == 1, np.where(b % 2 == 0, 1, a), 0)
    return np.where(neg, inverse, out)


class Add(BinaryOp):
    op = type = "Add"
    version = "opset1"
    fn = staticmethod(np.add)


class Subtract(BinaryOp):
    op = type = "Subtract"
    version = "opset1"
    fn = staticmethod(np.subtract)


class Multiply(BinaryOp):
    op = type = "Multiply"
    version = "opset1"
    fn = staticmethod(np.multiply)


class Divide(BinaryOp):
    """Divide-1: m_pythondiv selects floor (true) or truncating (false) integer division."""

    op = type = "Divide"
    version = "opset1"
    attr_types = {"m_pythondiv": "bool", "auto_broadcast": "str"}
    defaults = {"m_pythondiv": True, "auto_broadcast": "numpy"}

    @classmethod
    def apply(cls, attrs, a, b):
        return _divide(a, b, bool(attrs.get("m_pythondiv", True)))


class Power(BinaryOp):
    op = type = "Power"
    version = "opset1"
    fn = staticmethod(_power)


class Maximum(BinaryOp):
    op = type = "Maximum"
    version = "opset1"
    fn = staticmethod(np.maximum)


class Minimum(BinaryOp):
    op = type = "Minimum"
    version = "opset1"
    fn = staticmethod(np.minimum)


class Mod(BinaryOp):
    """Mod-1: truncated remainder, the sign of the dividend (C fmod)."""

    op = type = "Mod"
    version = "opset1"
    fn = staticmethod(np.fmod)


class FloorMod(BinaryOp):
    """FloorMod-1: floored remainder, the sign of the divisor (Python %)."""

    op = type = "FloorMod"
    version = "opset1"
    fn = staticmethod(np.mod)


class SquaredDifference(BinaryOp):
    op = type = "SquaredDifference"
    version = "opset1"
    fn = staticmethod(lambda a, b: np.square(np.subtract(a, b)))
