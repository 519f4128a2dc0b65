"""MO's graph utilities extension code calls (mo.utils.graph, mo.middle.pattern_match, the
layout marks of mo.middle.InsertLayoutPropagationTransposes, mo.utils.class_registration).

The layout marks are recorded on the node as MO recorded them (`correct_in_data_layout`,
`correct_out_data_layout`); the converter keeps the model's layout, so nothing permutes them.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from converter.graph.graph import Graph, Node

__all__ = [
    "ClassType", "bfs_search", "check_value", "get_value_id", "inverse_dict",
    "is_connected_component", "is_input_data_in_correct_layout",
    "is_output_data_in_correct_layout", "mark_as_correct_data_layout",
    "mark_input_as_in_correct_layout", "mark_output_as_in_correct_layout",
]


class ClassType(enum.Enum):
    """What a registered MO class is (its `get_type()`)."""

    EXTRACTOR = 0
    OP = 1
    FRONT_REPLACER = 2
    MIDDLE_REPLACER = 3
    BACK_REPLACER = 4
    IR_READER_EXTENDER = 5
    LOADER = 6


def bfs_search(graph: Graph, start_nodes: list | None = None) -> list[str]:
    """Node ids in breadth-first order from start_nodes (default: every node without inputs)."""
    start = list(start_nodes or [n for n in graph.nodes if graph.in_degree(n) == 0])
    seen, queue, order = set(start), deque(start), []
    while queue:
        current = queue.popleft()
        order.append(current)
        for _, nxt in graph.out_edges(current):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return order


def is_connected_component(graph: Graph, node_names: list) -> bool:
    """The nodes form one connected subgraph (edge direction ignored)."""
    if not node_names:
        return True
    members = set(node_names)
    seen, queue = {node_names[0]}, deque([node_names[0]])
    while queue:
        current = queue.popleft()
        near = [u for u, _ in graph.in_edges(current)] + [v for _, v in graph.out_edges(current)]
        for other in near:
            if other in members and other not in seen:
                seen.add(other)
                queue.append(other)
    return members <= seen


def check_value(v: Any, check: Callable[[Any], Any]) -> bool:
    """A value is there, real, and passes check (pattern attribute probes)."""
    return v is not None and bool(np.all(np.isreal(v))) and bool(check(v))


def inverse_dict(d: dict) -> dict:
    return {v: k for k, v in d.items()}


def get_value_id(node: Node) -> int | None:
    """The input port of node's only constant input; None for none or several."""
    ports = [i for i, n in node.in_nodes().items() if n.has_valid("value")]
    return ports[0] if len(ports) == 1 else None


def _marks(node: Node, key: str) -> set:
    if node.soft_get("kind") != "op":
        msg = f"layout marks go on operation nodes, not on {node.id}"
        raise ValueError(msg)
    return node.attrs().setdefault(key, set())


def mark_input_as_in_correct_layout(node: Node, port_ind: int) -> None:
    _marks(node, "correct_in_data_layout").add(port_ind)


def mark_output_as_in_correct_layout(node: Node, port_ind: int) -> None:
    _marks(node, "correct_out_data_layout").add(port_ind)


def is_input_data_in_correct_layout(node: Node, port_ind: int) -> bool:
    return port_ind in _marks(node, "correct_in_data_layout")


def is_output_data_in_correct_layout(node: Node, port_ind: int) -> bool:
    return port_ind in _marks(node, "correct_out_data_layout")


def mark_as_correct_data_layout(node: Node) -> None:
    """Every input and output port of node keeps its layout."""
    for idx in node.in_ports():
        mark_input_as_in_correct_layout(node, idx)
    for idx in node.out_ports():
        mark_output_as_in_correct_layout(node, idx)
