"""Back-phase transformation base and anchors (MO names)."""

from __future__ import annotations

from converter.passes import Anchor, ReplacementPattern

__all__ = ["BackFinish", "BackReplacementPattern", "BackStart"]


class BackReplacementPattern(ReplacementPattern):
    phase = "back"

    def run_after(self):
        return [BackStart]

    def run_before(self):
        return [BackFinish]


class BackStart(Anchor, BackReplacementPattern):
    """Anchor: user back transformations run after it."""


class BackFinish(Anchor, BackReplacementPattern):
    """Anchor: the end of the back phase."""

    def run_after(self):
        return [BackStart]


ReplacementPattern.excluded_replacers.append(BackReplacementPattern)
