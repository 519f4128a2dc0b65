"""MO's mo.middle.passes.fusing.helpers searches that fusing passes call: the one non-constant
input of an op (get_tensor_id) and the nearest ops of some types up or down the graph across
ops that may be jumped over (forward_bfs, backward_bfs)."""

from __future__ import annotations

from collections import deque

from converter.graph.graph import Node

__all__ = ["backward_bfs", "common_bfs", "forward_bfs", "get_tensor_id"]


def get_tensor_id(node: Node) -> int | None:
    """The input port of node's only input without a value; None when there are several."""
    assert node.has_valid("op")
    found = None
    for port, producer in node.in_nodes().items():
        if not producer.has_valid("value"):
            if found:
                return None
            found = port
    return found


def _next(node: Node, backward: bool) -> list[Node]:
    """Every producer (backward) or consumer of node, by port."""
    graph = node.graph
    if backward:
        edges = sorted(graph.in_data(node.id), key=lambda e: e[2].get("in", 0))
        return [Node(graph, u) for u, _, _ in edges]
    edges = sorted(graph.out_data(node.id), key=lambda e: e[2].get("out", 0))
    return [Node(graph, v) for _, v, _ in edges]


def common_bfs(start_node: Node, allowed_ops: list, op_name: list, is_backward: bool = True,
               allowed_all: bool = False, attr_to_check: str = "type",
               follow_multi_consumer_data_nodes: bool = False) -> list[Node]:
    """The nearest nodes whose attr_to_check is in op_name, in one direction, through nodes whose
    op is in allowed_ops (any op with allowed_all) and value-less data nodes; [] when a branch
    meets anything else, or on a cycle. Going backward, a data node with several consumers is
    followed only with follow_multi_consumer_data_nodes."""
    found: list[str] = []
    queue, seen = deque([start_node]), set()
    while queue:
        node = queue.popleft()
        if node.id in seen:
            return []
        seen.add(node.id)
        for near in _next(node, is_backward):
            if near.has_valid(attr_to_check):
                if near[attr_to_check] in op_name:
                    found += [near.id] if near.id not in found else []
                elif allowed_all or near.soft_get("op") in allowed_ops:
                    queue.append(near)
                else:
                    return []
            elif near.soft_get("kind") == "data" and near.soft_get("value", None) is None:
                if (not is_backward or follow_multi_consumer_data_nodes
                        or len(near.out_nodes()) == 1):
                    queue.append(near)
    return [Node(start_node.graph, n) for n in found]


def forward_bfs(start_node: Node, allowed_ops: list, op_name: list,
                allowed_all: bool = False) -> list[Node]:
    return common_bfs(start_node, allowed_ops, op_name, False, allowed_all=allowed_all)


def backward_bfs(start_node: Node, allowed_ops: list, op_name: list,
                 allowed_all: bool = False) -> list[Node]:
    return common_bfs(start_node, allowed_ops, op_name, allowed_all=allowed_all)
