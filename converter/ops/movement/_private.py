"""Helpers shared by the movement ops: reading shape-like inputs, axes and dynamic shapes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from converter.graph.shape import DYN, Shape, normalize_axis

__all__ = ["as_ints", "axes_of", "dynamic_like", "index_shape", "merge_dim", "scatter_reduce",
           "unknown_of_length"]


def as_ints(value: np.ndarray | Sequence[int] | int) -> list[int]:
    """A constant shape-like input (scalar or 1D) as a list of Python ints."""
    return [int(v) for v in np.asarray(value).ravel().tolist()]


def axes_of(value: np.ndarray | Sequence[int] | int, rank: int) -> list[int]:
    """Axes input values normalized into [0, rank)."""
    return [normalize_axis(a, rank) for a in as_ints(value)]


def dynamic_like(shape: Shape | None) -> Shape | None:
    """A shape of the same rank with every dimension dynamic."""
    return None if shape is None else (DYN,) * len(shape)


def unknown_of_length(shape_of_shape: Shape | None) -> Shape | None:
    """The output shape for a non-constant 1D shape input: rank known when its length is."""
    if shape_of_shape is None or len(shape_of_shape) != 1 or shape_of_shape[0] < 0:
        return None
    return (DYN,) * shape_of_shape[0]


def merge_dim(a: int, b: int) -> int:
    """Two dims that must agree: the known one wins."""
    return a if a >= 0 else b


def index_shape(shape: Shape, index: tuple) -> Shape:
    """The shape of x[index] for an index of slices, ints, None and one Ellipsis."""
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    out: list[int] = []
    axis = 0
    for item in index:
        if item is Ellipsis:
            fill = len(shape) - used
            out.extend(shape[axis:axis + fill])
            axis += fill
        elif item is None:
            out.append(1)
        elif isinstance(item, slice):
            d = shape[axis]
            out.append(len(range(*item.indices(d))) if d >= 0 else DYN)
            axis += 1
        else:
            axis += 1
    return tuple(out) + tuple(shape[axis:])


_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "min": np.minimum,
           "max": np.maximum, "sub": np.subtract}


def _identity(dtype: np.dtype, reduction: str):
    """The value a reduction starts from when the data is not used as initial value."""
    if reduction == "prod":
        return 1
    if reduction in ("min", "max"):
        if dtype.kind not in "fiu":
            return reduction == "min"
        info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
        return info.max if reduction == "min" else info.min
    return 0


def scatter_reduce(data: np.ndarray, where: tuple, updates: np.ndarray, reduction: str,
                   use_init_val: bool = True) -> np.ndarray:
    """Copy of data with updates applied at index tuple `where` ('none' = overwrite)."""
    out = data.copy()
    updates = np.asarray(updates, dtype=data.dtype)
    if reduction == "none":
        out[where] = updates
        return out
    if not use_init_val:
        out[where] = _identity(data.dtype, reduction)
    _UFUNCS[reduction].at(out, where, updates)
    if reduction == "mean":
        count = np.zeros(data.shape, dtype=np.int64)
        np.add.at(count, where, 1)
        count += int(use_init_val)
        hit = count > 0
        divided = out[hit] / count[hit]
        out[hit] = np.floor(divided) if data.dtype.kind in "iu" else divided
    return out
