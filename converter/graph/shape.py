"""Shapes as tuples of ints; -1 is a dynamic dimension, None a dynamic rank."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Shape = tuple[int, ...]
Bounds = tuple[tuple[int, int] | None, ...]  # per dimension (lower, upper) of 'lo..hi'; -1: none
DYN = -1

__all__ = [
    "DYN", "Bounds", "Shape", "as_shape", "broadcast", "dim", "format_bounded", "is_static",
    "normalize_axis", "parse_bounds", "parse_shape",
]


def is_static(shape: Sequence[int] | None) -> bool:
    """True when the rank and every dimension are known."""
    return shape is not None and all(d >= 0 for d in shape)


def dim(fn, *dims: int) -> int:
    """Apply fn to dims, or return DYN if any of them is dynamic."""
    return DYN if any(d < 0 for d in dims) else int(fn(*dims))


def broadcast(*shapes: Sequence[int] | None) -> Shape | None:
    """NumPy broadcasting over shapes with dynamic dims; raises ValueError on a mismatch."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        known = {d for d in dims if d >= 0 and d != 1}
        if len(known) > 1:
            raise ValueError(f"shapes {' and '.join(map(str, shapes))} do not broadcast")
        if known:
            out.append(known.pop())
        elif any(d < 0 for d in dims):
            out.append(DYN)
        else:
            out.append(1)
    return tuple(out)


def normalize_axis(axis: int, rank: int) -> int:
    """Map a negative axis into [0, rank); raises ValueError when out of range."""
    if not -rank <= axis < max(rank, 1):
        raise ValueError(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def parse_shape(text: str) -> Shape:
    """Parse '1,3,224,224', '[1,3,?,-1]' or '1 3 224 224' into a Shape (a bounded
    dimension '1..10' of an IR is dynamic too)."""
    body = text.strip().strip("[]()").replace(" ", ",")
    items: Iterable[str] = (p for p in body.split(",") if p)
    out = []
    for item in items:
        if item in ("?", "-1") or ".." in item:
            out.append(DYN)
        elif item.isdigit():
            out.append(int(item))
        else:
            raise ValueError(f"'{item}' is not a dimension (use a number, -1 or ?)")
    return tuple(out)


def parse_bounds(text: str) -> Bounds | None:
    """The bounded dimensions of a shape text parse_shape accepts: '1..4' is (1, 4), '..4'
    (0, 4), '2..' (2, -1); None when no dimension is bounded."""
    body = text.strip().strip("[]()").replace(" ", ",")
    bounds: list[tuple[int, int] | None] = []
    for item in (p for p in body.split(",") if p):
        lo, sep, hi = item.partition("..")
        if not sep:
            bounds.append(None)
            continue
        if not all(p.isdigit() for p in (lo, hi) if p) or (hi and int(hi) < int(lo or 0)):
            raise ValueError(f"'{item}' is not a dimension range (write lower..upper)")
        bounds.append((int(lo or 0), int(hi) if hi else DYN))
    return tuple(bounds) if any(bounds) else None


def format_bounded(shape: Shape, bounds: Bounds) -> str:
    """A shape as IR writes it, bounded dimensions as OpenVINO spells them (1..4, ..4, 2..)."""
    out = []
    for d, bound in zip(shape, bounds):
        if bound is None:
            out.append("?" if d == DYN else str(d))
        else:
            lo, hi = bound
            out.append(f"{lo or ''}..{hi if hi != DYN else ''}")
    return ",".join(out)


def as_shape(value) -> Shape | None:
    """Any shape (tuple, list, numpy array, MO's masked array) as a Shape: masked, negative and
    None dimensions become DYN."""
    if value is None or isinstance(value, tuple) and all(type(d) is int for d in value):
        return value
    import numpy as np

    if isinstance(value, np.ma.MaskedArray):
        value = value.astype(np.int64).filled(DYN)
    return tuple(DYN if d is None or d is np.ma.masked or int(d) < 0 else int(d) for d in value)
