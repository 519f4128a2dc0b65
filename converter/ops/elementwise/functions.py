"""The vectorised math every elementwise evaluator shares: the built-in ops (Sigmoid, SoftPlus,
Erf, Round, ...) and the ops `extgen new` generates from an expression, which call these by name
(`fn.sigmoid(x)`). NaN propagates through every function; `where` picks by nonzero."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import numpy as np

from converter.ops.elementwise.special import erf as _erf
from converter.ops.elementwise.special import erf32

__all__ = ["TABLE", "fn", "nearest", "operand", "relu", "result"]


def _scalar(value: float, x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    return np.asarray(value).astype(x.dtype if x.dtype.kind == "f" else np.float64)


_ROW = 4096  # elements per row of the zeros relu compares with
_ZEROS: dict[np.dtype, np.ndarray] = {}


def relu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """max(x, 0), NaN kept, into out if given. A contiguous x is taken in rows of _ROW
    elements against one row of zeros: numpy's maximum of an array and a scalar runs some four
    times slower than between two arrays."""
    x = np.asarray(x)
    out = np.empty_like(x, order="C") if out is None else out
    zero = np.zeros((), x.dtype)
    body = x.size - x.size % _ROW
    if not (body and x.flags.c_contiguous and out.flags.c_contiguous):
        return np.maximum(x, zero, out=out)
    zeros = _ZEROS.get(x.dtype)
    if zeros is None:
        zeros = _ZEROS[x.dtype] = np.zeros(_ROW, x.dtype)
        zeros.flags.writeable = False
    flat, into = x.reshape(-1), out.reshape(-1)
    np.maximum(flat[:body].reshape(-1, _ROW), zeros, out=into[:body].reshape(-1, _ROW))
    np.maximum(flat[body:], zero, out=into[body:])
    return out


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def softplus(x: np.ndarray) -> np.ndarray:
    """ln(1 + exp(x)) without overflow."""
    return np.logaddexp(_scalar(0, x), x)


def rsqrt(x: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(x)


def softsign(x: np.ndarray) -> np.ndarray:
    return x / (1 + np.abs(x))


def erf(x: np.ndarray) -> np.ndarray:
    """erf in x's float type (float32 arithmetic for float32/float16), else in float64."""
    x = np.asarray(x)
    if x.dtype in (np.float32, np.float16):
        return erf32(x).astype(x.dtype, copy=False)
    return _erf(x).astype(x.dtype if x.dtype.kind == "f" else np.float64)


def clamp(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """min(max(x, lo), hi); a NaN x stays NaN."""
    return np.minimum(np.maximum(x, lo), hi)


def hardsigmoid(x: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """clamp(alpha * x + beta, 0, 1)."""
    return clamp(alpha * x + beta, 0, 1)


def where(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(np.asarray(cond).astype(bool), a, b)


TABLE: dict[str, Callable[..., np.ndarray]] = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": rsqrt, "log1p": np.log1p,
    "expm1": np.expm1, "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "abs": np.abs,
    "floor": np.floor, "ceil": np.ceil, "round": np.rint, "sign": np.sign, "erf": erf,
    "sigmoid": sigmoid, "softplus": softplus, "softsign": softsign, "isnan": np.isnan,
    "isinf": np.isinf, "isfinite": np.isfinite, "min": np.minimum, "max": np.maximum,
    "pow": np.power, "clamp": clamp, "hardsigmoid": hardsigmoid, "where": where,
}
fn = SimpleNamespace(**TABLE)  # what generated ops call: fn.sigmoid(x)


def operand(x: np.ndarray) -> np.ndarray:
    """An input as expression math sees it: float32/float64 as they are, float16 as float32,
    integers and booleans as float64."""
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return x.astype(np.float32) if x.dtype.itemsize < 4 else x
    return x.astype(np.float64)


def result(value: np.ndarray, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An expression's value as an output: broadcast to the output shape, cast to its type
    (float to integer truncates toward zero, as C does)."""
    with np.errstate(invalid="ignore"):  # NaN or infinity to an integer: undefined, as in C
        return np.broadcast_to(np.asarray(value), shape).astype(dtype, order="C")  # 0-d stays


def nearest(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """x read at every position of an output of `shape`, nearest neighbour: along each axis
    (aligned on the right, as in broadcasting) output index i reads x's index i * n // m, n being
    x's dim and m the output's. A dim of 1 repeats, an equal dim maps one to one, m = k * n
    repeats each element k times: numpy broadcasting when the shapes broadcast."""
    x = np.asarray(x)
    lead = len(shape) - x.ndim
    if lead < 0 or any(n == 0 < m for n, m in zip(x.shape, shape[lead:])):
        msg = f"an input of shape {list(x.shape)} cannot be read at the positions of {list(shape)}"
        raise ValueError(msg)
    index = [np.arange(m) * n // m if n != m else slice(None)
             for n, m in zip(x.shape, shape[lead:])]
    for axis, at in enumerate(index):
        if not isinstance(at, slice):
            x = np.take(x, at, axis=axis)
    return np.broadcast_to(x, shape)
