"""Shared reading and rewriting for the activation fusions (activation_fusion.py,
hswish_fusion.py): what feeds a node, single-element constants, and putting one new op in the
place of a pattern's last node, as OpenVINO's pattern matcher does (a binary op that commutes
matches its operands in either order; intermediate nodes may have other consumers, and they
stay for those)."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.ops.op import Op

__all__ = ["const_array", "const_operand", "fed_by", "new_const", "new_op", "operands",
           "other_operand", "remove_unused", "replace_root", "scalar", "sole_consumer", "source",
           "split_scalar", "unary_input"]


def source(node: Node, idx: int) -> Port | None:
    """The output port feeding node's input idx, or None."""
    if idx not in node.in_ports() or node.in_port(idx).disconnected():
        return None
    return node.in_port(idx).get_source()


def sole_consumer(port: Port) -> Node | None:
    """The one node port feeds, or None when it feeds none or several."""
    dests = port.get_destinations()
    return dests[0].node if len(dests) == 1 else None


def fed_by(port: Port | None, *ops: str) -> Node | None:
    """port's node, when it is one of ops."""
    return port.node if port is not None and port.node.soft_get("op") in ops else None


def operands(node: Node) -> tuple[Port, Port] | None:
    """The two inputs of a binary op."""
    if set(node.in_ports()) != {0, 1}:
        return None
    a, b = source(node, 0), source(node, 1)
    return None if a is None or b is None else (a, b)


def other_operand(node: Node, port: Port) -> Port | None:
    """The input of a commuting binary op that is not port (when port is one of them)."""
    pair = operands(node)
    if pair is None or port not in pair:
        return None
    return pair[1] if pair[0] == port else pair[0]


def unary_input(node: Node | None, op: str) -> Port | None:
    """The input of node, when node is a one-input op of type op."""
    if node is None or node.soft_get("op") != op or set(node.in_ports()) != {0}:
        return None
    return source(node, 0)


def const_array(port: Port | None) -> np.ndarray | None:
    """The value of a constant output port (Consts and what folds to one)."""
    value = None if port is None else port.data.get_value()
    return None if value is None else np.asarray(value)


def scalar(port: Port | None) -> float | None:
    """The value of a constant of one element, of a number type."""
    value = const_array(port)
    if value is None or value.size != 1 or value.dtype.kind not in "fiu":
        return None
    return float(value.reshape(-1)[0])


def const_operand(node: Node | None) -> tuple[Port, Port] | None:
    """(the variable input, the constant input) of a binary op with one constant input: the
    second, or either for Add and Multiply."""
    pair = operands(node) if node is not None else None
    if pair is None:
        return None
    for var, const in (pair, pair[::-1]) if node.soft_get("op") in ("Add", "Multiply") else (
            pair,):
        if const_array(const) is not None and const_array(var) is None:
            return var, const
    return None


def split_scalar(node: Node) -> tuple[Port, float, Port] | None:
    """(the variable input, the constant's value, the constant's port) of a commuting binary
    op with one single-element constant input."""
    pair = operands(node)
    for var, const in (pair, pair[::-1]) if pair else ():
        value = scalar(const)
        if value is not None and const_array(var) is None:
            return var, value, const
    return None


def new_const(graph: Graph, value: np.ndarray, name: str) -> Port:
    node = Op.builtin_ops["Const"](graph).create_node(attrs={"name": name, "value": value})
    node.infer(node)
    return node.out_port(0)


def new_op(graph: Graph, op: str, inputs: list[Port], name: str,
           attrs: dict[str, Any] | None = None) -> Port:
    """A new op on inputs (its shape inferred); its output port."""
    node = Op.builtin_ops[op](graph).create_node(inputs, attrs={"name": name, **(attrs or {})})
    node.infer(node)
    return node.out_port(0)


def _same_tensor(a: Port, b: Port) -> bool:
    shapes = [a.data.get_shape(), b.data.get_shape()]
    types = [a.data.get_data_type(), b.data.get_data_type()]
    if any(v is None for v in shapes + types) or tuple(shapes[0]) != tuple(shapes[1]):
        return False
    return np.dtype(types[0]) == np.dtype(types[1])


def remove_unused(graph: Graph, node: Node) -> None:
    """node, when nothing consumes it any longer, and what fed only it."""
    stack = [node]
    while stack:
        node = stack.pop()
        if node.id not in graph or node.soft_get("op") == "Parameter" or any(
                node.out_port(p).get_destinations() for p in node.out_ports()):
            continue
        stack += [s.node for s in (source(node, i) for i in node.in_ports()) if s]
        graph.remove_nodes_from([node.id, *(d.id for _, d in node.iter_out_data())])


def replace_root(graph: Graph, root: Node, op: str, inputs: list[Port],
                 attrs: dict[str, Any] | None = None) -> Node | None:
    """A new op (named as root) on inputs takes root's consumers and output tensor names;
    root and what fed only it go. None (and nothing changed) unless the new op's output has
    root's shape and element type, which inputs[0] must have."""
    if not _same_tensor(inputs[0], root.out_port(0)):
        return None
    node = new_op(graph, op, inputs, root.soft_get("name", root.id), attrs).node
    if not _same_tensor(node.out_port(0), root.out_port(0)):
        remove_unused(graph, node)
        return None
    node.out_port(0).add_tensor_names(root.out_port(0).get_tensor_names())
    root.out_port(0).remove_tensor_names()
    root.out_port(0).get_connection().set_source(node.out_port(0))
    remove_unused(graph, root)
    return node
