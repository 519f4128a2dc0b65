"""Transformations: the ReplacementPattern base, ordering by run_before/run_after, running them.

Every subclass registers itself on definition (MO found them by subclass discovery, which is
the same set once the defining modules are imported). Order is a topological sort of the
run_before/run_after graph with ties broken by class name; a cycle is a clear error.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import networkx as nx

from converter.errors import ConversionError, ExtensionError, ExtgenError
from converter.graph.graph import Graph
from converter.graph.pattern import apply_pattern

__all__ = ["Anchor", "ReplacementPattern", "order_passes", "reinfer", "run_passes"]

log = logging.getLogger("extgen.convert")


class ReplacementPattern:
    """Base of every transformation. Override find_and_replace_pattern, or pattern() with
    replace_pattern(graph, match)."""

    enabled: ClassVar[bool] = True
    graph_condition: ClassVar[list] = []
    run_not_recursively: ClassVar[bool] = True
    force_clean_up: ClassVar[bool] = False
    force_shape_inference: ClassVar[bool] = False
    phase: ClassVar[str | None] = None  # 'front' | 'middle' | 'back', set by the phase bases
    registered_cls: ClassVar[list[type[ReplacementPattern]]] = []
    excluded_replacers: ClassVar[list[type[ReplacementPattern]]] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ReplacementPattern.registered_cls.append(cls)

    def run_before(self) -> list[type[ReplacementPattern]]:
        return []

    def run_after(self) -> list[type[ReplacementPattern]]:
        return []

    def pattern(self) -> dict:
        msg = f"{type(self).__name__} defines neither pattern() nor find_and_replace_pattern()"
        raise NotImplementedError(msg)

    def find_and_replace_pattern(self, graph: Graph) -> None:
        apply_pattern(graph, action=self.replace_pattern, **self.pattern())

    def replace_pattern(self, graph: Graph, match: dict) -> None:
        msg = f"{type(self).__name__} must implement replace_pattern(graph, match)"
        raise NotImplementedError(msg)


PASSED_ANCHORS = "passed_anchors"  # graph.graph key: the anchors the pass list has reached


class Anchor:
    """Mixin for a phase's Start/Finish marker: it only orders the passes around it."""

    def run_before(self) -> list:
        return []

    def run_after(self) -> list:
        return []

    def find_and_replace_pattern(self, graph: Graph) -> None:
        """Nothing to do: anchors only order (run_passes does not call it)."""


def _key(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def order_passes(classes: list[type[ReplacementPattern]]) -> list[type[ReplacementPattern]]:
    """Deterministic dependency order; raises ExtensionError on a cycle or duplicate ids."""
    ids: dict[str, type] = {}
    for cls in classes:
        pid = getattr(cls, "id", None)
        if isinstance(pid, str):
            if pid in ids and ids[pid] is not cls:
                msg = (
                    f"two transformations share the id '{pid}': {_key(ids[pid])} and "
                    f"{_key(cls)}; give one of them another id"
                )
                raise ExtensionError(msg)
            ids[pid] = cls
    dep = nx.DiGraph()
    present = set(classes)
    for cls in classes:
        dep.add_node(cls)
    for cls in classes:
        inst = cls()
        for other in inst.run_before():
            if other in present:
                dep.add_edge(cls, other)
        for other in inst.run_after():
            if other in present:
                dep.add_edge(other, cls)
    try:
        return list(nx.lexicographical_topological_sort(dep, key=lambda c: (c.__name__, _key(c))))
    except nx.NetworkXUnfeasible as err:
        cycle = " -> ".join(c.__name__ for c, _ in nx.find_cycle(dep))
        msg = f"transformations depend on each other in a cycle: {cycle}; fix run_before/run_after"
        raise ExtensionError(msg) from err


def _applies(inst: ReplacementPattern, graph: Graph) -> bool:
    if not getattr(inst, "enabled", True):
        return False
    return all(cond(graph) for cond in getattr(inst, "graph_condition", []) or [])


def reinfer(graph: Graph) -> None:
    """Shape inference again after a pass rewired the graph (force_shape_inference): computed
    shapes are dropped, constants kept."""
    from converter.middle.partial_infer import partial_infer

    for node in graph.get_data_nodes():
        if node.soft_get("value", None) is None:
            node["shape"] = None
    partial_infer(graph)


def run_passes(graph: Graph, classes: list[type[ReplacementPattern]]) -> None:
    """Instantiate and run each enabled pass; errors name the pass."""
    for cls in classes:
        inst = cls()
        if isinstance(inst, Anchor):
            graph.graph.setdefault(PASSED_ANCHORS, set()).add(cls.__name__)
            continue
        if not _applies(inst, graph):
            continue
        log.debug("running %s", _key(cls))
        try:
            inst.find_and_replace_pattern(graph)
            if getattr(inst, "force_clean_up", False):
                graph.clean_up()
            if getattr(inst, "force_shape_inference", False) and graph.stage in ("middle", "back"):
                reinfer(graph)
        except ExtgenError:
            raise
        except Exception as err:  # a failing pass is reported by name, with its cause
            pid = getattr(cls, "id", None) or cls.__name__
            msg = f"transformation '{pid}' ({_key(cls)}) failed: {type(err).__name__}: {err}"
            raise ConversionError(msg) from err
        graph.check_empty_graph(cls.__name__)
