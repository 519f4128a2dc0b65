"""Shape rules OpenVINO's validation enforces, as one-line messages for `Op.check_inputs`:
Reshape's element counts, broadcasting (numpy, pdpd, none) and dims that must agree (Concat).
Only known dims are compared: a dynamic dim agrees with anything, as in OpenVINO."""

from __future__ import annotations

import math
from collections.abc import Sequence

from converter.graph.shape import Shape, broadcast

__all__ = ["broadcast_by", "concat_problem", "reshape_problem", "show"]


def show(shape: Sequence[int]) -> str:
    """A shape as OpenVINO prints it: [1,3,?,?]."""
    return "[" + ",".join("?" if d < 0 else str(d) for d in shape) + "]"


def _counted(shape: Shape) -> str:
    return f"{show(shape)} ({math.prod(shape)} elements)" if min(shape, default=0) >= 0 \
        else show(shape)


def reshape_problem(shape: Shape | None, target: list[int], special_zero: bool) -> str | None:
    """Why OpenVINO refuses to reshape `shape` to the constant `target`, or None."""
    raw = "[" + ",".join(map(str, target)) + "]"
    if target.count(-1) > 1:
        return f"target shape {raw} has more than one -1"
    if any(t < -1 for t in target):
        return f"target shape {raw} holds {min(target)}; only -1 and sizes >= 0 are allowed"
    if not shape:  # rank 0 too: an IR port without dims may be of unknown rank
        return None
    copied = {i for i, t in enumerate(target) if t == 0 and special_zero}
    if copied and max(copied) >= len(shape):
        return (f"target shape {raw} copies dim {max(copied)} (special_zero) of "
                f"{show(shape)}, which has rank {len(shape)}")
    # copied dims are the same on both sides and cancel out, known or not
    left = [d for j, d in enumerate(shape) if j not in copied]
    rest = [t for j, t in enumerate(target) if j not in copied and t != -1]
    if any(d < 0 for d in left):
        return None
    have, want = math.prod(left), math.prod(rest)
    out = tuple(shape[i] if i in copied else t for i, t in enumerate(target))
    text = f"cannot reshape {_counted(shape)} to {raw}"
    if copied:
        text += f" (special_zero: {show(out)})"
    if -1 not in target:
        if have == want:
            return None
        if min(out, default=0) >= 0:
            return f"{text} ({math.prod(out)} elements)"
        return f"{text}: {have} elements vs {want} besides the copied dims"
    if want == 0 and have != 0:
        return f"{text}: the -1 dim cannot make a size-0 shape hold {have} elements"
    if want and have % want:
        return f"{text}: the dims besides -1 hold {want} elements, which do not divide {have}"
    return None


def broadcast_by(mode: str, a: Shape | None, b: Shape | None) -> Shape | None:
    """The shape of a op b under auto_broadcast `mode`; ValueError naming both on a mismatch."""
    if a is None or b is None:
        return None
    if mode == "none":
        if len(a) != len(b) or any(x != y for x, y in zip(a, b) if min(x, y) >= 0):
            raise ValueError(f"shapes {show(a)} and {show(b)} differ (auto_broadcast none)")
        return tuple(x if x >= 0 else y for x, y in zip(a, b))
    if mode == "pdpd":
        return _pdpd(a, b)
    try:
        return broadcast(a, b)
    except ValueError:
        msg = f"shapes {show(a)} and {show(b)} do not broadcast (auto_broadcast numpy)"
        raise ValueError(msg) from None


def _pdpd(a: Shape, b: Shape) -> Shape:
    """PaddlePaddle broadcasting of b into a: an IR's pdpd carries no axis, so OpenVINO aligns b
    with a's first dims, each of b's dims equal to a's or 1."""
    if len(b) > len(a) or any(y not in (1, x) and min(x, y) >= 0 for x, y in zip(a, b)):
        raise ValueError(f"shape {show(b)} does not broadcast into {show(a)} (auto_broadcast "
                         "pdpd: its dims must match the first ones or be 1)")
    known = [y if x < 0 and y != 1 else x for x, y in zip(a, b)]
    return tuple(known) + tuple(a[len(b):])


def concat_problem(shapes: list[Shape | None], axis: int) -> str | None:
    """Why OpenVINO refuses to concatenate `shapes` along axis: ranks or other dims differ."""
    # Concat takes no scalars: an IR port without dims is one of unknown rank
    known = [(i, s) for i, s in enumerate(shapes) if s]
    if not known:
        return None
    first, base = known[0]
    for i, s in known[1:]:
        if len(s) != len(base):
            return (f"inputs {first} and {i} have ranks {len(base)} and {len(s)} "
                    f"({show(base)} vs {show(s)})")
    axis = axis + len(base) if axis < 0 else axis
    for d in range(len(base)):
        sized = [(i, s) for i, s in known if s[d] >= 0]
        if d == axis or not sized:
            continue
        i, a = sized[0]
        for j, b in sized[1:]:
            if b[d] != a[d]:
                return (f"inputs {i} and {j} differ in dim {d}, which is not the concat axis "
                        f"{axis} ({show(a)} vs {show(b)})")
    return None
