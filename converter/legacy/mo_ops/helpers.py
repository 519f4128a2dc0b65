"""mo.middle.pattern_match.apply_pattern: pattern matching that accepts MO's op names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from converter.graph.graph import Graph
from converter.graph.pattern import apply_pattern as _apply_pattern
from converter.legacy.replacement import aliased_pattern

__all__ = ["apply_pattern"]


def apply_pattern(graph: Graph, nodes: list, edges: list, action: Callable, **kwargs: Any) -> None:
    """converter.graph.pattern.apply_pattern, MO's op names matching extgen's ops."""
    pattern = aliased_pattern({"nodes": nodes, "edges": edges})
    _apply_pattern(graph, action=action, **pattern)
