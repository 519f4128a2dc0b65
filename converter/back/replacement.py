"""Back-phase transformation base and anchors (MO names)."""

from __future__ import annotations

from converter.graph.graph import Graph
from converter.passes import ReplacementPattern

__all__ = ["BackFinish", "BackReplacementPattern", "BackStart"]


class BackReplacementPattern(ReplacementPattern):
    phase = "back"

    def run_after(self):
        return [BackStart]

    def run_before(self):
        return [BackFinish]


class BackStart(BackReplacementPattern):
    def run_after(self):
        return []

    def run_before(self):
        return []

    def find_and_replace_pattern(self, graph: Graph) -> None:
        pass


class BackFinish(BackReplacementPattern):
    def run_after(self):
        return [BackStart]

    def run_before(self):
        return []

    def find_and_replace_pattern(self, graph: Graph) -> None:
        pass


ReplacementPattern.excluded_replacers.append(BackReplacementPattern)
