"""Activations: ReLU, Sigmoid, Elu, Clamp, PReLU, Gelu, Swish, ... https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/activation/relu-1.html"""

from __future__ import annotations

import math

import numpy as np

from converter.ops.elementwise._base import UnaryOp, scalar_like
from converter.ops.elementwise.functions import hardsigmoid, relu, sigmoid, softplus, softsign
from converter.ops.elementwise.special import erf, gelu32, gelu_tanh32
from converter.ops.native import kernels

__all__ = [
    "Clamp", "Elu", "Gelu", "HSigmoid", "HSwish", "HardSigmoid", "Mish", "PRelu", "Relu",
    "Selu", "Sigmoid", "SoftPlus", "SoftSign", "Swish",
]


def _relu6_over_6(x: np.ndarray) -> np.ndarray:
    """min(max(x + 3, 0), 6) / 6, the hard sigmoid of HSigmoid and HSwish."""
    return np.clip(x + scalar_like(3, x), 0, 6) / scalar_like(6, x)


class Relu(UnaryOp):
    op = type = "ReLU"
    version = "opset1"
    fn = staticmethod(relu)

    @classmethod
    def inplace(cls, attrs, values):
        return lambda x: relu(x, out=x)


class Sigmoid(UnaryOp):
    op = type = "Sigmoid"
    version = "opset1"
    fn = staticmethod(sigmoid)


class Elu(UnaryOp):
    """Elu-1: x for x > 0, alpha * (exp(x) - 1) otherwise."""

    op = type = "Elu"
    version = "opset1"
    attr_types = {"alpha": "float"}
    defaults = {"alpha": 1.0}

    @classmethod
    def apply(cls, attrs, x):
        return np.where(x > 0, x, scalar_like(attrs["alpha"], x) * np.expm1(x))


class Clamp(UnaryOp):
    """Clamp-1: clip to [min, max]; integer tensors use ceil(min) and floor(max). In conversion
    the bounds may still be inputs 1 and 2 (MO's form, until the back phase)."""

    op = type = "Clamp"
    version = "opset1"
    attr_types = {"min": "float", "max": "float"}

    @staticmethod
    def bounds(attrs: dict, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = float(attrs["min"]), float(attrs["max"])
        if x.dtype.kind in "iu":
            info = np.iinfo(x.dtype)
            lo, hi = np.clip([math.ceil(lo) if math.isfinite(lo) else lo,
                              math.floor(hi) if math.isfinite(hi) else hi], info.min, info.max)
        return scalar_like(lo, x), scalar_like(hi, x)

    @classmethod
    def apply(cls, attrs, x, *bounds):
        if bounds:
            attrs = {**attrs, "min": float(bounds[0]), "max": float(bounds[1])}
        lo, hi = cls.bounds(attrs, x)
        return np.minimum(np.maximum(x, lo), hi)

    @classmethod
    def inplace(cls, attrs, values):
        def clamp(x: np.ndarray) -> None:
            lo, hi = cls.bounds(attrs, x)
            np.minimum(np.maximum(x, lo, out=x), hi, out=x)
        return clamp


class HardSigmoid(UnaryOp):
    """HardSigmoid-1: max(0, min(1, alpha * x + beta)), alpha and beta as scalar inputs."""

    op = type = "HardSigmoid"
    version = "opset1"
    in_ports_count = 3

    @classmethod
    def apply(cls, attrs, x, alpha, beta):
        return hardsigmoid(x, alpha.astype(x.dtype), beta.astype(x.dtype))


class Selu(UnaryOp):
    """Selu-1: lambda * (x if x > 0 else alpha * (exp(x) - 1)), alpha and lambda as inputs."""

    op = type = "Selu"
    version = "opset1"
    in_ports_count = 3

    @classmethod
    def apply(cls, attrs, x, alpha, lambda_):
        neg = alpha.astype(x.dtype) * np.expm1(x)
        return lambda_.astype(x.dtype) * np.where(x > 0, x, neg)


class PRelu(UnaryOp):
    """PReLU-1: x < 0 ? slope * x : x. A 1D slope as long as dim 1 of x is per channel,
    any other slope broadcasts numpy-style."""

    op = type = "PReLU"
    version = "opset1"
    in_ports_count = 2

    @classmethod
    def apply(cls, attrs, x, slope):
        if slope.ndim == 1 and x.ndim >= 2 and slope.shape[0] == x.shape[1]:
            slope = slope.reshape((-1,) + (1,) * (x.ndim - 2))
        return np.where(x < 0, x * slope.astype(x.dtype), x)


class Gelu(UnaryOp):
    """Gelu-7: approximation_mode 'erf' (exact) or 'tanh'. float32 and float16 in float32 by
    cache-sized blocks (`special.gelu32`), other types in float64; the shim's float32 erf form
    through the native kernel where there is one (the same formula in one pass)."""

    op = type = "Gelu"
    version = "opset7"
    attr_types = {"approximation_mode": "str"}
    defaults = {"approximation_mode": "erf"}

    @staticmethod
    def _tanh(attrs: dict) -> bool:
        return attrs.get("approximation_mode", "erf").lower() == "tanh"

    @classmethod
    def apply(cls, attrs, x):
        if x.dtype in (np.float32, np.float16):
            return (gelu_tanh32 if cls._tanh(attrs) else gelu32)(x)
        v = x.astype(np.float64)
        if cls._tanh(attrs):
            inner = math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)
            return 0.5 * v * (1 + np.tanh(inner))
        return 0.5 * v * (1 + erf(v / math.sqrt(2)))

    @classmethod
    def plan(cls, attrs, values, used):
        native = None if cls._tanh(attrs) else kernels()
        if native is None:
            return super().plan(attrs, values, used)

        def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
            x = inputs[0]
            if x.dtype != np.float32:
                return cls.compute(attrs, inputs)
            x = np.ascontiguousarray(x)
            out = np.empty_like(x)
            native.gelu(x, out)
            return [out]
        return run

    @classmethod
    def inplace(cls, attrs, values):
        fn = gelu_tanh32 if cls._tanh(attrs) else gelu32
        native = None if cls._tanh(attrs) else kernels()

        def gelu(x: np.ndarray) -> None:
            if x.dtype != np.float32:
                x[...] = cls.evaluate(attrs, [x])[0]
            elif native is not None and x.flags.c_contiguous:
                native.gelu(x, x)
            else:
                fn(x, out=x)
        return gelu


class Swish(UnaryOp):
    """Swish-4: x * sigmoid(beta * x), beta an optional scalar input (default 1)."""

    op = type = "Swish"
    version = "opset4"
    in_ports_count = 2

    @classmethod
    def apply(cls, attrs, x, beta=None):
        scaled = x if beta is None else beta.astype(x.dtype) * x
        return x * sigmoid(scaled)


class HSwish(UnaryOp):
    op = type = "HSwish"
    version = "opset4"
    fn = staticmethod(lambda x: x * _relu6_over_6(x))


class HSigmoid(UnaryOp):
    op = type = "HSigmoid"
    version = "opset5"
    fn = staticmethod(_relu6_over_6)


class SoftPlus(UnaryOp):
    """SoftPlus-4: ln(1 + exp(x)), computed without overflow."""

    op = type = "SoftPlus"
    version = "opset4"
    fn = staticmethod(softplus)


class Mish(UnaryOp):
    op = type = "Mish"
    version = "opset4"
    fn = staticmethod(lambda x: x * np.tanh(softplus(x)))


class SoftSign(UnaryOp):
    op = type = "SoftSign"
    version = "opset9"
    fn = staticmethod(softsign)
