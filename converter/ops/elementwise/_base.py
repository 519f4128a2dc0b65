"""Shared bases for elementwise ops: unary (same shape and type) and binary (broadcasting)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from converter.ops.op import Op
from converter.ops.shape_rules import broadcast_by

__all__ = ["BinaryOp", "UnaryOp", "broadcast_mode", "cast_to", "scalar_like"]


def cast_to(value: Any, dtype: np.dtype) -> np.ndarray:
    """value as an array of dtype (no copy when it already is one)."""
    return np.asarray(value).astype(dtype, copy=False)


def scalar_like(value: Any, x: np.ndarray) -> np.ndarray:
    """A 0-d array of value in x's dtype (keeps float16/int arithmetic in that dtype)."""
    return np.asarray(value).astype(x.dtype)


class UnaryOp(Op):
    """y = fn(x), same shape and type as x. Subclasses set `fn`, or override `apply` (which
    also receives any parameter inputs, e.g. HardSigmoid's alpha and beta)."""

    in_ports_count = 1
    fn: ClassVar = None

    @classmethod
    def apply(cls, attrs: dict[str, Any], x: np.ndarray, *params: np.ndarray) -> np.ndarray:
        return cls.fn(x)

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, *params = (np.asarray(v) for v in inputs)
        with np.errstate(all="ignore"):
            y = cls.apply(attrs, x, *params)
        return [cast_to(y, cls.infer_types(attrs, [x.dtype])[0])]


def broadcast_mode(attrs: dict[str, Any]) -> str:
    """An op's auto_broadcast (numpy when the attributes leave it out)."""
    return attrs.get("auto_broadcast", "numpy")


class BinaryOp(Op):
    """z = fn(x, y) broadcast by auto_broadcast: numpy (the default), pdpd (y aligned with x's
    first dims) or none (equal shapes). Subclasses set `fn`."""

    in_ports_count = 2
    attr_types = {"auto_broadcast": "str"}
    defaults = {"auto_broadcast": "numpy"}
    fn: ClassVar = None
    result_type: ClassVar[np.dtype | None] = None  # e.g. boolean for comparisons
    same_type_inputs = 2

    @classmethod
    def check_inputs(cls, attrs, shapes, types, values):
        try:
            broadcast_by(broadcast_mode(attrs), shapes[0], shapes[1])
        except ValueError as err:
            return str(err)
        return super().check_inputs(attrs, shapes, types, values)

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [broadcast_by(broadcast_mode(attrs), shapes[0], shapes[1])]

    @classmethod
    def infer_types(cls, attrs, types):
        return [cls.result_type if cls.result_type is not None else types[0]]

    @classmethod
    def apply(cls, attrs: dict[str, Any], a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return cls.fn(a, b)

    @classmethod
    def evaluate(cls, attrs, inputs):
        a, b = (np.asarray(x) for x in inputs[:2])
        if broadcast_mode(attrs) == "pdpd":  # numpy aligns the last dims: pad b's with 1s
            b = b.reshape(b.shape + (1,) * (a.ndim - b.ndim))
        with np.errstate(all="ignore"):
            z = cls.apply(attrs, a, b)
        return [cast_to(z, cls.infer_types(attrs, [a.dtype, b.dtype])[0])]

    @classmethod
    def inplace(cls, attrs, values):
        """x = fn(x, b) into x for a float constant b, when fn is a plain ufunc."""
        b = values[1]
        plain = (isinstance(cls.fn, np.ufunc) and cls.result_type is None
                 and cls.apply.__func__ is BinaryOp.apply.__func__)
        if not plain or b is None or b.dtype.kind != "f" or broadcast_mode(attrs) == "pdpd":
            return None
        fn = cls.fn
        return lambda x: fn(x, b, out=x)
