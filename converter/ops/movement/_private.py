"""Helpers shared by the movement ops: reading shape-like inputs, axes and dynamic shapes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from converter.graph.shape import DYN, Shape, normalize_axis

__all__ = ["as_ints", "axes_of", "dynamic_like", "merge_dim", "unknown_of_length"]


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
