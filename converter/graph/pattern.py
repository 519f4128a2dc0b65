"""Sub-graph pattern matching for replacement patterns (MO's apply_pattern)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from networkx.algorithms import isomorphism

from converter.graph.graph import Graph, Node

__all__ = ["apply_pattern", "find_pattern_matches"]


def _node_match(actual: dict, wanted: dict) -> bool:
    for key, want in wanted.get("_pattern", {}).items():
        have = actual.get(key)
        if callable(want) and not isinstance(want, type):  # a type (np.int32) is a value
            if not want(have):
                return False
        elif have != want:
            return False
    return True


def _edge_match(actual: dict, wanted: dict) -> bool:
    wants = [w.get("_pattern", {}) for w in wanted.values()]
    return all(
        any(all(e.get(k) == v for k, v in want.items()) for e in actual.values())
        for want in wants
    )


def find_pattern_matches(
    graph: Graph, nodes: list[tuple[str, dict]], edges: list[tuple]
) -> list[dict[str, Node]]:
    """Every match of the pattern, as {alias: Node}."""
    pattern = Graph()
    for alias, attrs in nodes:
        pattern.add_node(alias, _pattern=attrs)
    for edge in edges:
        src, dst, *rest = edge
        pattern.add_edge(src, dst, _pattern=rest[0] if rest else {})
    matcher = isomorphism.MultiDiGraphMatcher(
        graph, pattern, node_match=_node_match, edge_match=_edge_match
    )
    matches = []
    for mapping in matcher.subgraph_monomorphisms_iter():
        matches.append({alias: Node(graph, nid) for nid, alias in mapping.items()})
    return matches


def apply_pattern(
    graph: Graph, nodes: list, edges: list, action: Callable[[Graph, dict], Any], **_: Any
) -> None:
    """Call action(graph, match) for each match whose nodes still exist."""
    for match in find_pattern_matches(graph, nodes, edges):
        if all(n.id in graph for n in match.values()):
            action(graph, match)
