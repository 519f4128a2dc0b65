"""MO's graph-building helpers that extension code calls: an op with constant inputs
(mo.front.tf.graph_utils), a Result on a port (mo.graph.graph.add_opoutput), removing an op
between two data nodes (mo.middle.passes.eliminate), the op neighbours a fusing pass walks
(mo.middle.passes.fusing.helpers)."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.legacy.ops import builtin_op

__all__ = [
    "add_opoutput", "const_into", "create_op_node_with_second_input", "create_op_with_const_inputs",
    "get_next_operation", "get_tensor_in_port", "get_value_in_port",
    "remove_op_node_with_data_node",
]


def const_into(node: Node, port: int, value: Any, name: str, attrs: dict | None = None) -> Node:
    """A Const holding value, connected to node's input port (created when missing); after the
    front phase its output tensor gets its value at once, as MO's Const.infer did."""
    const = builtin_op("Const")(node.graph, {"name": name, "value": np.asarray(value),
                                             **(attrs or {})}).create_node()
    node.add_input_port(port, skip_if_exist=True)
    const.out_port(0).connect(node.in_port(port))
    if node.graph.stage not in (None, "front") and const.has_valid("infer"):
        const.infer(const)
    return const


def create_op_with_const_inputs(graph: Graph, op: type, port_value_dict: dict[int, Any],
                                op_attrs: dict | None = None,
                                input_node: Node | None = None) -> Node:
    """A new `op` node with a Const on each port of port_value_dict; input_node's output 0
    feeds port 0 when given."""
    node = op(graph, op_attrs).create_node()
    if input_node is not None:
        input_node.out_port(0).connect(node.in_port(0))
    for port, value in port_value_dict.items():
        const_into(node, port, value, f"{node.soft_get('name', node.id)}_input_port_{port}/value")
    return node


def create_op_node_with_second_input(graph: Graph, op: type, second_input_value: Any,
                                     op_attrs: dict | None = None,
                                     input_node: Node | None = None) -> Node:
    """create_op_with_const_inputs with one Const, on port 1."""
    node = op(graph, op_attrs).create_node()
    if input_node is not None:
        input_node.out_port(0).connect(node.in_port(0))
    const_into(node, 1, second_input_value, f"{node.soft_get('name', node.id)}/value")
    return node


def add_opoutput(graph: Graph, node_name: str, port: int, cut: bool = True,
                 keep_output_port: bool = False, user_defined_name: str | None = None) -> Node:
    """A Result on output `port` of the node with id node_name (named `<id>/sink_port_<port>`);
    it joins the port's consumers (MO's `cut` kept them too: the Result only adds an output)."""
    node = Node(graph, node_name)
    result = builtin_op("Result")(graph, {
        "name": f"{node_name}/sink_port_{port}", "keep_output_port": keep_output_port,
    }).create_node()
    node.out_port(port).connect(result.in_port(0))
    if user_defined_name is not None:
        node.out_port(port).add_tensor_names([user_defined_name])
    return result


def remove_op_node_with_data_node(graph: Graph, node_to_remove: Node,
                                  input_data_node: Node | None = None) -> None:
    """Remove a one-output op: its consumers read what fed its input (input_data_node's port,
    default port 0)."""
    if node_to_remove.kind != "op":
        msg = f"remove_op_node_with_data_node: {node_to_remove.id} is not an op node"
        raise ValueError(msg)
    port = 0
    if input_data_node is not None:
        port = next(i for i, p in node_to_remove.in_ports().items()
                    if not p.disconnected() and p.data_node() == input_data_node)
    source = node_to_remove.in_port(port).get_source()
    node_to_remove.out_port(0).get_connection().set_source(source)
    outs = [d for _, d in graph.out_edges(node_to_remove.id)
            if graph.nodes[d].get("kind") == "data"]
    graph.remove_nodes_from([node_to_remove.id, *outs])


def get_tensor_in_port(node: Node) -> Port | None:
    """The only input port without a constant value, or None."""
    ports = [p for p in node.in_ports().values() if p.data.get_value() is None]
    return ports[0] if len(ports) == 1 else None


def get_value_in_port(node: Node) -> Port | None:
    """The only input port with a constant value, or None."""
    ports = [p for p in node.in_ports().values() if p.data.get_value() is not None]
    return ports[0] if len(ports) == 1 else None


def get_next_operation(node: Node) -> list[Node]:
    """The op nodes that consume node's outputs, each once, in port order."""
    found: list[Node] = []
    for _, port in sorted(node.out_ports().items()):
        for dst in port.get_destinations():
            if dst.node not in found:
                found.append(dst.node)
    return found
