"""MO's helpers that build shape subgraphs (mo.utils.shape): ShapeOf/Gather/Range/Concat nodes
that compute dimensions at run time, for passes that keep a model reshapeable."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from converter.graph.graph import Node
from converter.graph.port import Port
from converter.legacy.build import create_op_node_with_second_input, create_op_with_const_inputs
from converter.legacy.ops import builtin_op

__all__ = [
    "get_canonical_axis_index_node", "get_range_node_of_idxs", "get_shape_and_rank_nodes_by_port",
    "get_shape_values_by_indices_node", "get_shape_values_by_range_idxs",
    "new_shape_node_from_shape_nodes", "node_to_get_batch_value",
    "node_to_get_features_dimension_value", "node_to_get_shape_value_of_indices",
    "node_to_get_spatial_dimensions_value",
]


def _name(node: Node) -> str:
    return node.soft_get("name", node.id)


def _const(node: Node, value: int | Sequence[int], suffix: str) -> Node:
    return builtin_op("Const")(node.graph, {"name": _name(node) + suffix,
                                            "value": np.array(value, np.int64)}).create_node()


def _plus(node: Node, value: int, suffix: str) -> Node:
    """node's output + value (i64)."""
    return create_op_node_with_second_input(node.graph, builtin_op("Add"), np.int64(value),
                                            {"name": _name(node) + suffix}, node)


def get_canonical_axis_index_node(rank: Node, axis: int) -> Node:
    """A node producing axis made non-negative against the rank that `rank` produces."""
    return _plus(rank, axis, "/positive_axis") if axis < 0 else \
        _const(rank, axis, "/positive_axis")


def get_range_node_of_idxs(rank: Node, begin: int, end: int, include_begin: bool = True,
                           include_end: bool = False) -> Node:
    """A Range node producing the indices begin..end (negatives counted from `rank`)."""
    start = get_canonical_axis_index_node(rank, begin)
    stop = get_canonical_axis_index_node(rank, end)
    if not include_begin:
        start = _plus(start, 1, "/exclude_begin")
    if include_end:
        stop = _plus(stop, 1, "/including_end")
    step = _const(rank, 1, "/delta")
    return builtin_op("Range")(rank.graph, {"name": _name(rank) + "/range_idxs"}).create_node(
        [start, stop, step])


def get_shape_values_by_indices_node(shape_node: Node, indices_node: Node) -> Node:
    """A Gather (axis 0) of shape_node's output at the indices indices_node produces."""
    axis = _const(shape_node, 0, "/Axis")
    return builtin_op("Gather")(shape_node.graph, {"name": _name(shape_node) + "/Gather"}) \
        .create_node([shape_node, indices_node, axis])


def node_to_get_shape_value_of_indices(shape_node: Node, indices: Sequence[int]) -> Node:
    """A Gather of shape_node's output at the given (constant) indices."""
    return get_shape_values_by_indices_node(shape_node, _const(shape_node, indices, "/Indices"))


def get_shape_values_by_range_idxs(shape: Node, rank: Node, begin: int, end: int,
                                   include_begin: bool = True, include_end: bool = False) -> Node:
    return get_shape_values_by_indices_node(
        shape, get_range_node_of_idxs(rank, begin, end, include_begin, include_end))


def node_to_get_batch_value(shape_node: Node) -> Node:
    return node_to_get_shape_value_of_indices(shape_node, [0])


def _layout(shape_node: Node) -> str:
    layout = shape_node.graph.graph.get("layout", "NCHW")
    if layout not in ("NCHW", "NHWC"):
        msg = f"layout '{layout}' is neither NCHW nor NHWC"
        raise ValueError(msg)
    return layout


def node_to_get_features_dimension_value(shape_node: Node) -> Node:
    return node_to_get_shape_value_of_indices(shape_node, [1 if _layout(shape_node) == "NCHW"
                                                           else -1])


def node_to_get_spatial_dimensions_value(shape_node: Node) -> Node:
    """The spatial dimensions of the (shape-inferred) tensor whose ShapeOf is shape_node."""
    shape = shape_node.in_port(0).get_source().data.get_shape()
    if shape is None:
        msg = f"{_name(shape_node)}: the shape must be inferred before asking for its spatial dims"
        raise ValueError(msg)
    first = 2 if _layout(shape_node) == "NCHW" else 1
    return node_to_get_shape_value_of_indices(shape_node, range(first, first + len(shape) - 2))


def new_shape_node_from_shape_nodes(input_shape_nodes: list[Node]) -> Node:
    """A Concat (axis 0) of the 1-D outputs of the given nodes."""
    if not input_shape_nodes:
        msg = "new_shape_node_from_shape_nodes: give at least one node"
        raise ValueError(msg)
    first = input_shape_nodes[0]
    return builtin_op("Concat")(first.graph, {"axis": 0, "name": _name(first) + "/shapes_concat",
                                              "in_ports_count": len(input_shape_nodes)}) \
        .create_node(list(input_shape_nodes))


def get_shape_and_rank_nodes_by_port(port: Port, return_as_a_scalar: bool = True
                                     ) -> tuple[Node, Node]:
    """ShapeOf of the tensor at port, and its rank (a scalar, or 1-D with return_as_a_scalar
    False)."""
    name, graph = _name(port.node), port.node.graph
    shape = builtin_op("ShapeOf")(graph, {"name": name + "/ShapeOf"}).create_node()
    shape.in_port(0).connect(port)
    rank = builtin_op("ShapeOf")(graph, {"name": name + "/1dRankOf"}).create_node([shape])
    if return_as_a_scalar:
        rank = create_op_with_const_inputs(graph, builtin_op("Squeeze"), {1: np.array([0])},
                                           {"name": name + "/0dRankOf"}, rank)
    return shape, rank
