"""Legacy transformation bases: the converter's, with MO's op names accepted in pattern().

MO named some ops differently (`Mul` for Multiply, `Sub`, `Div`, `Pow`, ...) and keyed ONNX
custom-domain ops by type alone; a legacy pattern's `op` matches either name. MO's `Clamp`
(bounds as inputs) and `AttributedClamp` (bounds as attributes) are both extgen's Clamp: a
pattern tells them apart by the `min` attribute. A legacy pass's find_and_replace_pattern
infers what it built (converter.legacy.pass_run). The extra anchors PreMiddleStart and
PostMiddleStart order around MiddleStart and MiddleFinish.
"""

from __future__ import annotations

import functools
from typing import Any

from converter.back import replacement as _back
from converter.front import replacement as _front
from converter.front.mo_names import op_aliases
from converter.legacy.ops import MO_OP_NAMES
from converter.legacy.pass_run import mo_pass_run
from converter.middle import replacement as _middle
from converter.middle.replacement import PostMiddleStart, PreMiddleStart
from converter.passes import ReplacementPattern

__all__ = [
    "BackReplacementPattern", "aliased_pattern", "FrontReplacementOp", "FrontReplacementPattern",
    "FrontReplacementSubgraph", "MiddleReplacementPattern", "PostMiddleStart", "PreMiddleStart",
]


def _op_matcher(want: str):
    names = op_aliases(want) | {MO_OP_NAMES.get(want, want)}

    def match(have: Any) -> bool:
        if not isinstance(have, str):
            return False
        return have in names or ("::" in have and have.split("::", 1)[1] in names)

    return match


# MO's Clamp had its bounds as inputs 1 and 2, its AttributedClamp as `min`/`max`; extgen's
# Clamp is either (its back phase makes every one attributed, as MO's ClampNormalizer did)
_CLAMP_BOUNDS = {"Clamp": lambda low: low is None, "AttributedClamp": lambda low: low is not None}


def aliased_pattern(found: dict) -> dict:
    """A pattern dict whose `op` names also match the converter's names for MO's ops."""
    found = dict(found)
    nodes = []
    for alias, attrs in found.get("nodes", []):
        attrs = dict(attrs)
        if attrs.get("op") in _CLAMP_BOUNDS and "min" not in attrs:
            attrs["min"] = _CLAMP_BOUNDS[attrs["op"]]
        if isinstance(attrs.get("op"), str):
            attrs["op"] = _op_matcher(attrs["op"])
        nodes.append((alias, attrs))
    found["nodes"] = nodes
    found.setdefault("edges", [])
    return found


def _aliased(raw):
    """pattern() (a method, staticmethod or classmethod) with MO's op names aliased."""
    fn = getattr(raw, "__func__", raw)

    @functools.wraps(fn)
    def pattern(self) -> dict:
        return aliased_pattern(raw.__get__(self, type(self))())

    return pattern


class _LegacyPatterns:
    """Wraps every pattern() a subclass defines so MO's op names match, and its
    find_and_replace_pattern so what it builds is inferred after it, as MO's clean-up did."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "pattern" in cls.__dict__:
            cls.pattern = _aliased(cls.__dict__["pattern"])
        mo_pass_run(cls)


class FrontReplacementPattern(_LegacyPatterns, _front.FrontReplacementPattern):
    pass


class FrontReplacementSubgraph(_LegacyPatterns, _front.FrontReplacementSubgraph):
    pass


class FrontReplacementOp(_LegacyPatterns, _front.FrontReplacementOp):
    def pattern(self) -> dict:
        return {"nodes": [("op", {"op": type(self).op, "kind": "op"})], "edges": []}


class MiddleReplacementPattern(_LegacyPatterns, _middle.MiddleReplacementPattern):
    pass


class BackReplacementPattern(_LegacyPatterns, _back.BackReplacementPattern):
    pass


ReplacementPattern.excluded_replacers.extend([
    FrontReplacementPattern, FrontReplacementSubgraph, FrontReplacementOp,
    MiddleReplacementPattern, BackReplacementPattern,
])
