"""Unary math ops: Abs, Exp, Sin, ... (opset1/4), Round (opset5), IsNaN/IsInf/IsFinite (opset10). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/arithmetic/abs-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.elementwise._base import UnaryOp
from converter.ops.elementwise.functions import TABLE

__all__ = [
    "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceiling", "Cos", "Cosh", "Erf",
    "Exp", "Floor", "IsFinite", "IsInf", "IsNaN", "Log", "Negative", "Round", "Sign", "Sin",
    "Sinh", "Sqrt", "Tan", "Tanh",
]


class Abs(UnaryOp):
    op = type = "Abs"
    version = "opset1"
    fn = staticmethod(np.abs)


class Acos(UnaryOp):
    op = type = "Acos"
    version = "opset1"
    fn = staticmethod(np.arccos)


class Acosh(UnaryOp):
    op = type = "Acosh"
    version = "opset4"
    fn = staticmethod(np.arccosh)


class Asin(UnaryOp):
    op = type = "Asin"
    version = "opset1"
    fn = staticmethod(np.arcsin)


class Asinh(UnaryOp):
    op = type = "Asinh"
    version = "opset4"
    fn = staticmethod(np.arcsinh)


class Atan(UnaryOp):
    op = type = "Atan"
    version = "opset1"
    fn = staticmethod(np.arctan)


class Atanh(UnaryOp):
    op = type = "Atanh"
    version = "opset4"
    fn = staticmethod(np.arctanh)


class Ceiling(UnaryOp):
    op = type = "Ceiling"
    version = "opset1"
    fn = staticmethod(np.ceil)


class Cos(UnaryOp):
    op = type = "Cos"
    version = "opset1"
    fn = staticmethod(np.cos)


class Cosh(UnaryOp):
    op = type = "Cosh"
    version = "opset1"
    fn = staticmethod(np.cosh)


class Erf(UnaryOp):
    op = type = "Erf"
    version = "opset1"
    fn = staticmethod(TABLE["erf"])


class Exp(UnaryOp):
    op = type = "Exp"
    version = "opset1"
    fn = staticmethod(np.exp)


class Floor(UnaryOp):
    op = type = "Floor"
    version = "opset1"
    fn = staticmethod(np.floor)


class Log(UnaryOp):
    op = type = "Log"
    version = "opset1"
    fn = staticmethod(np.log)


class Negative(UnaryOp):
    op = type = "Negative"
    version = "opset1"
    fn = staticmethod(np.negative)


class Sign(UnaryOp):
    op = type = "Sign"
    version = "opset1"
    fn = staticmethod(np.sign)


class Sin(UnaryOp):
    op = type = "Sin"
    version = "opset1"
    fn = staticmethod(np.sin)


class Sinh(UnaryOp):
    op = type = "Sinh"
    version = "opset1"
    fn = staticmethod(np.sinh)


class Sqrt(UnaryOp):
    op = type = "Sqrt"
    version = "opset1"
    fn = staticmethod(np.sqrt)


class Tan(UnaryOp):
    op = type = "Tan"
    version = "opset1"
    fn = staticmethod(np.tan)


class Tanh(UnaryOp):
    op = type = "Tanh"
    version = "opset1"
    fn = staticmethod(np.tanh)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    a = np.abs(x)
    whole = np.floor(a)
    return np.copysign(whole + (a - whole >= 0.5), x)


class Round(UnaryOp):
    """Round-5: mode 'half_to_even' or 'half_away_from_zero'."""

    op = type = "Round"
    version = "opset5"
    attr_types = {"mode": "str"}
    defaults = {"mode": "half_to_even"}

    @classmethod
    def apply(cls, attrs, x):
        if x.dtype.kind not in "fc":
            return x
        if attrs.get("mode", "half_to_even") == "half_to_even":
            return TABLE["round"](x)
        return _round_half_away(x)


class _FloatTest(UnaryOp):
    @classmethod
    def infer_types(cls, attrs, types):
        return [np.dtype(np.bool_)]


class IsNaN(_FloatTest):
    op = type = "IsNaN"
    version = "opset10"
    fn = staticmethod(np.isnan)


class IsFinite(_FloatTest):
    op = type = "IsFinite"
    version = "opset10"
    fn = staticmethod(np.isfinite)


class IsInf(_FloatTest):
    """IsInf-10: detect_negative / detect_positive pick which infinities count."""

    op = type = "IsInf"
    version = "opset10"
    attr_types = {"detect_negative": "bool", "detect_positive": "bool"}
    defaults = {"detect_negative": True, "detect_positive": True}

    @classmethod
    def apply(cls, attrs, x):
        pos, neg = attrs.get("detect_positive", True), attrs.get("detect_negative", True)
        return np.isinf(x) & np.where(x > 0, pos, neg)
