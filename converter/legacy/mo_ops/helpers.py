"""The few MO helper functions MO's own op-building transformations call (mo.front.tf.graph_utils,
mo.middle.pattern_match), in their minimal form: an op fed by new constants, a value check, and
pattern matching that accepts MO's op names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from converter.graph.graph import Graph, Node
from converter.graph.pattern import apply_pattern as _apply_pattern
from converter.legacy.mo_ops._base import const_input
from converter.legacy.replacement import aliased_pattern

__all__ = [
    "apply_pattern", "check_value", "create_op_node_with_second_input",
    "create_op_with_const_inputs",
]


def create_op_with_const_inputs(graph: Graph, op: type, port_value_dict: dict[int, Any],
                                op_attrs: dict | None = None,
                                input_node: Node | None = None) -> Node:
    """A new `op` node with a new Const on each listed input port (and input_node on port 0)."""
    node = op(graph, op_attrs or {}).create_node()
    if input_node is not None:
        input_node.out_port(0).connect(node.in_port(0))
    for port, value in port_value_dict.items():
        value = np.asarray(value)
        const_input(node, port, value, dtype=value.dtype)
    return node


def create_op_node_with_second_input(graph: Graph, op: type, second_input_value: Any,
                                     op_attrs: dict | None = None,
                                     input_node: Node | None = None) -> Node:
    return create_op_with_const_inputs(graph, op, {1: second_input_value}, op_attrs, input_node)


def check_value(v: Any, check: Callable[[Any], Any]) -> bool:
    return v is not None and bool(np.all(np.isreal(v))) and bool(check(v))


def apply_pattern(graph: Graph, nodes: list, edges: list, action: Callable, **kwargs: Any) -> None:
    """converter.graph.pattern.apply_pattern, MO's op names matching extgen's ops."""
    pattern = aliased_pattern({"nodes": nodes, "edges": edges})
    _apply_pattern(graph, action=action, **pattern)
