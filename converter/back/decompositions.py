"""What ovc's offline transformations decompose between their activation fusions and their
linear fusions: a Divide of non-integer data by a constant becomes a Multiply by the constant's
reciprocal (ConvertDivideWithConstant), and a Negative a Multiply by -1 (ConvertNegative), so
that the linear fusions after them fold both into the ops around."""

from __future__ import annotations

import numpy as np

from converter.back._fusion_ports import const_array, new_const, new_op, remove_unused, source
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.middle.subgraphs import bodies_of

__all__ = ["decompose_for_fusion"]


def _as_multiply(graph: Graph, node: Node, x: Port, factor: np.ndarray) -> None:
    """node's consumers and output names now read x * factor (named as node)."""
    name = node.soft_get("name", node.id)
    out = new_op(graph, "Multiply", [x, new_const(graph, factor, f"{name}/factor")], name)
    out.add_tensor_names(node.out_port(0).get_tensor_names())
    node.out_port(0).remove_tensor_names()
    node.out_port(0).get_connection().set_source(out)
    remove_unused(graph, node)


def _decompose(graph: Graph, node: Node) -> None:
    x = source(node, 0)
    dtype = None if x is None else x.data.get_data_type()
    if dtype is None or const_array(x) is not None:
        return
    if node.soft_get("op") == "Negative" and np.dtype(dtype).kind in "fi":
        _as_multiply(graph, node, x, np.array(-1, dtype))
        return
    divisor = const_array(source(node, 1)) if node.soft_get("op") == "Divide" else None
    if divisor is not None and np.dtype(dtype).kind == "f" and source(node, 1).node.soft_get(
            "op") == "Const":
        with np.errstate(divide="ignore"):  # x / 0 is x * inf, as in ovc
            _as_multiply(graph, node, x, np.reciprocal(divisor))


def decompose_for_fusion(graph: Graph) -> None:
    for node in graph.get_op_nodes():
        if node.id in graph and node.soft_get("op") in ("Divide", "Negative"):
            _decompose(graph, node)
    for body in bodies_of(graph):
        decompose_for_fusion(body)
