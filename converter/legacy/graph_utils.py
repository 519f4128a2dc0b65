"""MO's graph utilities extension code calls (mo.utils.graph, mo.middle.pattern_match with
MO's op names matching extgen's ops, the layout marks of
mo.middle.InsertLayoutPropagationTransposes, mo.utils.class_registration).

The layout marks are recorded on the node as MO recorded them (`correct_in_data_layout`,
`correct_out_data_layout`). MO permuted every other tensor of a channels-last model; extgen
only those of the NCHW part its layout change made, so a tensor elsewhere is in the correct
layout too.
"""

from __future__ import annotations

import enum
import re
from collections import deque
from collections.abc import Callable
from typing import Any

import networkx as nx
import numpy as np

from converter.graph.graph import Graph, Node
from converter.graph.pattern import apply_pattern as _apply_pattern
from converter.graph.pattern import find_pattern_matches as _find_matches
from converter.legacy.replacement import aliased_pattern
from converter.legacy.utils import Error
from converter.middle.layout.transposes import in_nchw_part

__all__ = [
    "ClassType", "apply_pattern", "backward_bfs_for_operation", "bfs_search",
    "check_node_usages_out_of_match", "check_value", "for_graph_and_each_sub_graph_recursively",
    "check_inputs", "clear_tensor_names_info", "fill_graph_with_nodes",
    "invert_sub_graph_between_nodes",
    "get_node_with_permutation", "looking_for_op_in_list", "skip_nodes_by_condition",
    "find_inputs", "find_isomorphisms", "find_pattern_matches",
    "find_outputs", "get_edge_attribute_between_nodes", "get_value_id",
    "set_edge_attribute_between_nodes",
    "inverse_dict", "merge_edge_props", "nodes_matching_name_pattern",
    "is_connected_component", "is_input_data_in_correct_layout", "sub_graph_between_nodes",
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


def _follow(attrs: dict, control_flow: bool) -> bool:
    return control_flow or not attrs.get("control_flow_edge", False)


def _walk(graph: Graph, start_nodes: list, end_nodes: list, forward: bool,
          detect_extra_start_node: Callable[[Node], bool] | None,
          include_control_flow: bool) -> tuple[list, list]:
    """Breadth-first from start_nodes: ahead (along the edges when forward) but not past an
    end node, and behind from every node but the starts. A node detect_extra_start_node picks
    is not expanded behind; it is listed apart."""
    def near(node: str, ahead: bool) -> list:
        edges = graph.out_edges(node, data=True) if ahead == forward else \
            graph.in_edges(node, data=True)
        return [e[1] if ahead == forward else e[0] for e in edges
                if _follow(e[2], include_control_flow)]

    order, seen, queue, extra = [], set(start_nodes), deque(start_nodes), []
    while queue:
        current = queue.popleft()
        order.append(current)
        ahead = [] if current in end_nodes else near(current, True)
        behind = [] if current in start_nodes else [
            n for n in near(current, False) if n not in seen]
        if behind and detect_extra_start_node is not None and \
                detect_extra_start_node(Node(graph, current)):
            extra.append(current)
            behind = []
        for other in ahead + behind:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    inputs = [n for n in order if graph.nodes[n].get("op") == "Parameter"]
    if inputs:
        msg = f'The matched sub-graph contains network input node "{inputs[0]}"'
        raise Error(msg)
    return order, extra


def sub_graph_between_nodes(graph: Graph, start_nodes: list, end_nodes: list,
                            detect_extra_start_node: Callable[[Node], bool] | None = None,
                            include_control_flow: bool = True,
                            allow_non_reachable_end_nodes: bool = False) -> Any:
    """Node ids of the subgraph from start_nodes to end_nodes: what the starts reach going
    forward (not past an end node) plus every input of those nodes but the starts', and the
    inputs' own inputs. A node for which detect_extra_start_node is true is not expanded
    backward; it is returned as a second list (given that callable). Raises Error when an
    end node is not reached or the subgraph takes in a model input (Parameter)."""
    reached = set(start_nodes).union(*(nx.descendants(graph, s) for s in start_nodes))
    lost = [e for e in end_nodes if e not in reached]
    if lost and not allow_non_reachable_end_nodes:
        msg = f'End node "{lost[0]}" is not reachable from start nodes: {start_nodes}'
        raise Error(msg)
    order, extra = _walk(graph, start_nodes, end_nodes, True, detect_extra_start_node,
                         include_control_flow)
    return order if detect_extra_start_node is None else (order, extra)


def invert_sub_graph_between_nodes(graph: Graph, start_nodes: list, end_nodes: list,
                                   detect_extra_start_node: Callable[[Node], bool] | None = None
                                   ) -> Any:
    """sub_graph_between_nodes walked against the edges: from start_nodes back to end_nodes,
    plus every consumer of those nodes but the starts'."""
    order, extra = _walk(graph, start_nodes, end_nodes, False, detect_extra_start_node, True)
    return order if detect_extra_start_node is None else (order, extra)


def nodes_matching_name_pattern(graph: Graph, pattern: str) -> list[str]:
    """Ids of the nodes whose id matches the regular expression at its start."""
    compiled = re.compile(pattern)
    return [n for n in graph.nodes if compiled.match(n)]


def find_inputs(graph: Graph) -> list[str]:
    """Ids of the model inputs (Parameter nodes)."""
    return [n for n, a in graph.nodes(data=True) if a.get("type") == "Parameter"]


def find_outputs(graph: Graph) -> list[str]:
    """Ids of the nodes that feed a Result, each once."""
    return sorted({u for n, a in graph.nodes(data=True) if a.get("op") == "Result"
                   for u, _ in graph.in_edges(n)})


def merge_edge_props(attrs: dict, additional_attrs: dict) -> dict:
    """attrs updated from additional_attrs but for the port numbers; list values are united."""
    for key, value in additional_attrs.items():
        if key in ("in", "out"):
            continue
        if isinstance(value, list):
            attrs[key] = list(dict.fromkeys([*attrs.get(key, []), *value]))
        else:
            attrs[key] = value
    return attrs


def _edges_between(node1: Node, node2: Node) -> list[dict]:
    return [d for _, v, d in node1.graph.out_edges(node1.id, data=True) if v == node2.id]


def get_edge_attribute_between_nodes(node1: Node, node2: Node, attr_name: str) -> Any:
    """The attribute of the (front-stage) edge from node1 to node2; None when absent."""
    return next((d[attr_name] for d in _edges_between(node1, node2) if attr_name in d), None)


def set_edge_attribute_between_nodes(node1: Node, node2: Node, attr_name: str,
                                     new_value: Any) -> None:
    graph = node1.graph
    for key in list(graph._succ[node1.id].get(node2.id, {})):
        graph.own_edge_attrs(node1.id, node2.id, key)[attr_name] = new_value


def clear_tensor_names_info(nodes: list[Node]) -> None:
    """Drop the framework tensor names from the nodes' outgoing edges (a pass that changed
    what the tensor holds); the names of the nodes stay."""
    for node in nodes:
        for u, v, key, data in list(node.graph.out_edges(node.id, keys=True, data=True)):
            infos = data.get("fw_tensor_debug_info") or []
            node.graph.add_edge(u, v, key, fw_tensor_debug_info=[
                (i[0], i[1], None) for i in infos if i is not None and len(i) >= 2])


def find_pattern_matches(graph: Graph, nodes: list, edges: list) -> list[dict[str, Node]]:
    """Every match of the pattern as {alias: Node}; MO's op names match extgen's ops."""
    return _find_matches(graph, **aliased_pattern({"nodes": nodes, "edges": edges}))


find_isomorphisms = find_pattern_matches  # MO's name for the same search


def apply_pattern(graph: Graph, nodes: list, edges: list, action: Callable, **_: Any) -> None:
    """action(graph, match) for each match whose nodes still exist; MO's op names match
    extgen's ops."""
    _apply_pattern(graph, action=action, **aliased_pattern({"nodes": nodes, "edges": edges}))


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
    """Marked so, or the tensor keeps the model's layout (MO permuted every other one)."""
    if port_ind in _marks(node, "correct_in_data_layout"):
        return True
    port = node.in_port(port_ind) if port_ind in node.in_ports() else None
    source = None if port is None or port.disconnected() else port.get_source()
    return source is not None and not in_nchw_part(source)


def is_output_data_in_correct_layout(node: Node, port_ind: int) -> bool:
    """Marked so, or the tensor keeps the model's layout (MO permuted every other one)."""
    return (port_ind in _marks(node, "correct_out_data_layout")
            or not in_nchw_part(node.out_port(port_ind)))


def mark_as_correct_data_layout(node: Node) -> None:
    """Every input and output port of node keeps its layout."""
    for idx in node.in_ports():
        mark_input_as_in_correct_layout(node, idx)
    for idx in node.out_ports():
        mark_output_as_in_correct_layout(node, idx)


def check_node_usages_out_of_match(match: dict, node_name_in_match_group: str) -> bool:
    """Whether every producer and consumer of the matched node is in the match too."""
    assert node_name_in_match_group in match
    node = match[node_name_in_match_group]
    matched = {n.id for n in match.values()}
    graph = node.graph
    near = [u for u, _ in graph.in_edges(node.id)] + [v for _, v in graph.out_edges(node.id)]
    return all(n in matched for n in near)


def get_node_with_permutation(node: Node, port_info: str) -> Node:
    """The node at 'input:<port>' (its producer) or 'output:<port>' (its consumer) of node."""
    side, port = port_info.split(":")
    return node.in_node(int(port)) if side == "input" else node.out_node(int(port))


def fill_graph_with_nodes(graph: Graph, src_nodes: Any, get_id: Callable,
                          get_attrs: Callable) -> None:
    """A graph node per source node, with id get_id(node) and attributes get_attrs(node)."""
    for node in src_nodes:
        graph.add_node(get_id(node), **get_attrs(node))


def looking_for_op_in_list(nodes: list, op: str) -> Node | None:
    """The first of nodes whose op is op."""
    return next((n for n in nodes if n.has_valid("op") and n.op == op), None)


def check_inputs(graph: Graph) -> Node:
    """A Kaldi model's main input: its one Parameter, or of two the one not named 'ivector'."""
    inputs = graph.get_op_nodes(op="Parameter")
    if len(inputs) == 2 and "ivector" in (inputs[0].name, inputs[1].name):
        return inputs[1] if inputs[0].name == "ivector" else inputs[0]
    if len(inputs) == 2:
        raise Error("There are 2 inputs for Kaldi model but we can't find out which one is "
                    "ivector. Use name 'ivector' for the corresponding input")
    if len(inputs) != 1:
        raise Error(f"There are {len(inputs)} inputs for Kaldi model but we expect only 1 or 2")
    return inputs[0]


def skip_nodes_by_condition(current_node: Node, condition: Callable,
                            forward: bool = False) -> Node:
    """The first node from current_node, going through output (forward) or input 0, for which
    condition is false."""
    while condition(current_node):
        current_node = current_node.out_node() if forward else current_node.in_node()
    return current_node


def for_graph_and_each_sub_graph_recursively(graph: Graph, func: Callable[[Graph], Any]) -> None:
    """func(graph), then func of each body graph (Loop, If, TensorIterator) at any depth."""
    from converter.middle.subgraphs import GraphBody

    func(graph)
    for node in graph.get_op_nodes():
        for body in (node.soft_get("bodies", None) or {}).values():
            inner = body.graph if isinstance(body, GraphBody) else body
            for_graph_and_each_sub_graph_recursively(inner, func)


def backward_bfs_for_operation(start_node: Node, op_names: list,
                               skip_op_list: list | None = None) -> list[Node]:
    """The nearest ops of `op_names` upstream of start_node, breadth first: the walk passes
    other ops (stopping at those of skip_op_list) and data nodes without a value."""
    skip = skip_op_list or []
    found: list[str] = []
    queue = deque([start_node])
    while queue:
        for src in queue.popleft().in_nodes().values():
            if src.kind == "op" and src.soft_get("op", None) in op_names:
                found += [] if src.id in found else [src.id]
            elif (src.kind == "op" and src.soft_get("op", None) not in skip) or (
                    src.kind == "data" and src.soft_get("value", None) is None):
                queue.append(src)
    return [Node(start_node.graph, n) for n in found]
