"""Helpers shared by the reduce-family ops: axes inputs, reduced shapes, identity values."""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np

from converter.graph.shape import DYN, Shape, normalize_axis

__all__ = ["axes_of", "highest", "lowest", "reduced_shape", "scalar_int"]


def axes_of(value: np.ndarray | Sequence[int] | int, rank: int) -> tuple[int, ...]:
    """An axes input (scalar or 1D) normalized into [0, rank), duplicates removed."""
    return tuple(sorted({normalize_axis(int(a), rank) for a in np.asarray(value).ravel()}))


def scalar_int(value: np.ndarray | int) -> int:
    """A scalar (or one-element) integer input as a Python int."""
    return int(np.asarray(value).reshape(-1)[0])


def reduced_shape(
    shape: Shape | None, axes_shape: Shape | None, axes: np.ndarray | None, keep_dims: bool
) -> Shape | None:
    """The output shape of a reduction of `shape` over an axes input (value may be unknown)."""
    if shape is None:
        return None
    if axes is None:
        if keep_dims:
            return (DYN,) * len(shape)
        if axes_shape is not None and len(axes_shape) <= 1 and all(d >= 0 for d in axes_shape):
            count = axes_shape[0] if axes_shape else 1
            return (DYN,) * (len(shape) - count)
        return None
    reduced = set(axes_of(axes, len(shape)))
    if keep_dims:
        return tuple(1 if i in reduced else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in reduced)


def _is_float(dtype: np.dtype) -> bool:
    """numpy's floats and ml_dtypes' (bfloat16: kind 'V')."""
    if dtype.kind == "f":
        return True
    try:
        ml_dtypes.finfo(dtype)
    except ValueError:
        return False
    return True


def lowest(dtype: np.dtype) -> np.generic:
    """The smallest value of dtype (-inf for floats): the identity of max."""
    dtype = np.dtype(dtype)
    if _is_float(dtype):
        return dtype.type(-np.inf)
    if dtype.kind == "b":
        return np.bool_(False)
    return np.iinfo(dtype).min


def highest(dtype: np.dtype) -> np.generic:
    """The largest value of dtype (+inf for floats): the identity of min."""
    dtype = np.dtype(dtype)
    if _is_float(dtype):
        return dtype.type(np.inf)
    if dtype.kind == "b":
        return np.bool_(True)
    return np.iinfo(dtype).max
