"""ConstantLast: an Add or Multiply whose first input is a constant and whose second is not gets
its inputs swapped (torch exports a Linear's bias as Add(bias, MatMul)). Both ops are
commutative and broadcast alike, so the result is the same; the shim fuses an elementwise
layer into the op that computes its first input, so a bias Add, a layer-scale Multiply and a
Gelu after them then run in place at the end of the MatMul or Convolution."""

from __future__ import annotations

from converter.graph.graph import Graph
from converter.middle.replacement import MiddleReplacementPattern

__all__ = ["ConstantLast"]

_COMMUTATIVE = ("Add", "Multiply")


def constant_last(graph: Graph) -> int:
    """Swap the inputs of each such Add/Multiply; the number swapped."""
    swapped = 0
    for op in _COMMUTATIVE:
        for node in graph.get_op_nodes(op=op):
            first, second = node.in_port(0).get_source(), node.in_port(1).get_source()
            if first is None or second is None:
                continue
            if first.data.get_value() is None or second.data.get_value() is not None:
                continue
            node.in_port(0).disconnect()  # both first: each edge stays its pair's key 0
            node.in_port(1).disconnect()  # (MO's passes read get_edge_data(u, v)[0])
            first.connect(node.in_port(1))
            second.connect(node.in_port(0))
            swapped += 1
    return swapped


class ConstantLast(MiddleReplacementPattern):
    """Add/Multiply(constant, x) -> (x, constant)."""

    enabled = True

    def find_and_replace_pattern(self, graph: Graph) -> None:
        constant_last(graph)
