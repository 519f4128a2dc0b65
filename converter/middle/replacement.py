"""Middle-phase transformation base and anchors (MO names)."""

from __future__ import annotations

from converter.passes import Anchor, ReplacementPattern

__all__ = ["MiddleFinish", "MiddleReplacementPattern", "MiddleStart"]


class MiddleReplacementPattern(ReplacementPattern):
    phase = "middle"

    def run_after(self):
        return [MiddleStart]

    def run_before(self):
        return [MiddleFinish]


class MiddleStart(Anchor, MiddleReplacementPattern):
    """Anchor: user middle transformations run after it."""


class MiddleFinish(Anchor, MiddleReplacementPattern):
    """Anchor: the end of the middle phase."""

    def run_after(self):
        return [MiddleStart]


ReplacementPattern.excluded_replacers.append(MiddleReplacementPattern)
