"""Middle-phase transformation base and anchors (MO names)."""

from __future__ import annotations

from converter.graph.graph import Graph
from converter.passes import ReplacementPattern

__all__ = ["MiddleFinish", "MiddleReplacementPattern", "MiddleStart"]


class MiddleReplacementPattern(ReplacementPattern):
    phase = "middle"

    def run_after(self):
        return [MiddleStart]

    def run_before(self):
        return [MiddleFinish]


class MiddleStart(MiddleReplacementPattern):
    def run_after(self):
        return []

    def run_before(self):
        return []

    def find_and_replace_pattern(self, graph: Graph) -> None:
        pass


class MiddleFinish(MiddleReplacementPattern):
    def run_after(self):
        return [MiddleStart]

    def run_before(self):
        return []

    def find_and_replace_pattern(self, graph: Graph) -> None:
        pass


ReplacementPattern.excluded_replacers.append(MiddleReplacementPattern)
