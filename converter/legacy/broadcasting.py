"""MO's broadcasting helpers (mo.utils.broadcasting): numpy rules over shapes that may hold
dynamic (masked) dimensions, and over values."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.legacy.shapes import is_fully_defined, shape_array

__all__ = [
    "bi_directional_broadcasting", "bi_directional_shape_broadcasting", "explicit_broadcasting",
    "explicit_shape_broadcasting", "make_equal_rank", "uni_directional_broadcasting",
    "uni_directional_shape_broadcasting",
]


def make_equal_rank(shape_1: Any, shape_2: Any) -> tuple[np.ma.MaskedArray, np.ma.MaskedArray]:
    """Both shapes with leading 1s up to the larger rank."""
    a, b = list(shape_array(shape_1)), list(shape_array(shape_2))
    rank = max(len(a), len(b))
    pad = [1] * (rank - len(a)), [1] * (rank - len(b))
    return shape_array(pad[0] + [None if d is np.ma.masked else d for d in a]), \
        shape_array(pad[1] + [None if d is np.ma.masked else d for d in b])


def bi_directional_shape_broadcasting(shape_1: Any, shape_2: Any) -> np.ma.MaskedArray | None:
    """numpy broadcasting of two shapes; None when they do not broadcast. A dynamic dimension
    against 1 (or another dynamic one) stays dynamic."""
    out = []
    for x, y in zip(*make_equal_rank(shape_1, shape_2)):
        dyn_x, dyn_y = x is np.ma.masked, y is np.ma.masked
        if not (dyn_x or dyn_y):
            if x != y and 1 not in (x, y):
                return None
            out.append(max(x, y))
        else:
            known = y if dyn_x else x
            out.append(known if not (dyn_x and dyn_y) and known != 1 else None)
    return shape_array(out)


def uni_directional_shape_broadcasting(input_shape: Any, target_shape: Any
                                       ) -> np.ma.MaskedArray | None:
    """The shape input_shape takes when broadcast to target_shape; None if it cannot be."""
    if len(input_shape) > len(target_shape):
        return None
    out = []
    for x, y in zip(*make_equal_rank(input_shape, target_shape)):
        if y is np.ma.masked:
            out.append(x if x is not np.ma.masked and x != 1 else None)
        elif x is np.ma.masked or x in (1, y):
            out.append(y)
        else:
            return None
    return shape_array(out)


def _broadcast(value: np.ndarray, shape: Any, ok: Any, how: str) -> np.ndarray:
    if ok is None or not is_fully_defined(ok):
        msg = f"a tensor of shape {list(value.shape)} cannot be {how} broadcast to {list(shape)}"
        raise ValueError(msg)
    return value * np.ones(np.asarray(shape, np.int64)).astype(value.dtype)


def uni_directional_broadcasting(input_value: np.ndarray, target_shape: Any) -> np.ndarray:
    ok = uni_directional_shape_broadcasting(input_value.shape, target_shape)
    return _broadcast(input_value, target_shape, ok, "uni-directionally")


def bi_directional_broadcasting(input_value: np.ndarray, second_shape: Any) -> np.ndarray:
    ok = bi_directional_shape_broadcasting(input_value.shape, second_shape)
    return _broadcast(input_value, second_shape, ok, "bi-directionally")


def explicit_shape_broadcasting(input_shape: Any, target_shape: Any, axes_mapping: Any
                                ) -> tuple[Any, np.ndarray]:
    """target_shape, and axes_mapping made non-negative, after checking that input dimension i
    equals target dimension axes_mapping[i] (the mapping sorted, one axis per input dim)."""
    axes = np.array([a + len(target_shape) if a < 0 else a for a in axes_mapping], np.int64)
    fits = len(axes) == len(input_shape) and bool(np.all(np.diff(axes) >= 0)) and all(
        0 <= a < len(target_shape) and target_shape[a] == input_shape[i]
        for i, a in enumerate(axes))
    if not fits:
        msg = (f"axes_mapping {list(axes_mapping)} does not map shape {list(input_shape)} "
               f"onto {list(target_shape)}")
        raise ValueError(msg)
    return np.array(target_shape).copy(), axes


def explicit_broadcasting(input_value: np.ndarray, target_shape: Any, axes_mapping: Any
                          ) -> np.ndarray:
    shape, axes = explicit_shape_broadcasting(input_value.shape, target_shape, axes_mapping)
    expanded = input_value
    for axis in sorted(set(range(len(target_shape))) - set(axes.tolist())):
        expanded = np.expand_dims(expanded, axis)
    return np.broadcast_to(expanded, shape)
