"""Middle-phase transformation base and anchors (MO names)."""

from __future__ import annotations

from converter.passes import Anchor, ReplacementPattern

__all__ = ["MiddleFinish", "MiddleReplacementPattern", "MiddleStart", "PostMiddleStart",
           "PreMiddleStart"]


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


class PreMiddleStart(Anchor, MiddleReplacementPattern):
    """Anchor before MiddleStart. MO ran its passes before shape inference; here the middle
    phase (and so these passes) follows inference."""

    def run_after(self):
        return []

    def run_before(self):
        return [MiddleStart]


class PostMiddleStart(Anchor, MiddleReplacementPattern):
    """Anchor after MiddleFinish: where MO began preparing for the back phase, changing the
    layout first (LayoutChangeNHWCtoNCHW runs after it, as MO's layout passes did)."""

    def run_after(self):
        return [MiddleFinish]

    def run_before(self):
        return []
