"""Reading a function body's NodeDefs by data flow, the way the loop translators match
patterns: a tensor's origin behind Identity chains, the node that makes it, the loop variable
(body Parameter) it is, who reads it."""

from __future__ import annotations

import numpy as np

from converter.front.tf.attrs import attr_value, get_tf_node_port

__all__ = ["ADDS", "BodyNodes", "Tensor"]

ADDS = ("Add", "AddV2")
_PASS = ("Identity", "ReadVariableOp")
Tensor = tuple[str, int]


class BodyNodes:
    """NodeDefs by name, and the names of the body's Parameters (its loop variables)."""

    def __init__(self, nodes: dict, params: list[str]) -> None:
        self.nodes, self.params = nodes, params

    def origin(self, tensor: str) -> Tensor:
        """(node, port) behind a chain of Identity and ReadVariableOp nodes."""
        name, port = get_tf_node_port(tensor)
        while port == 0 and name in self.nodes and self.nodes[name].op in _PASS:
            name, port = get_tf_node_port(self.nodes[name].input[0])
        return name, port

    def node(self, tensor: str | Tensor, *ops: str):
        """The node of one of `ops` that makes tensor, else None."""
        name, _ = self.origin(tensor) if isinstance(tensor, str) else tensor
        node = self.nodes.get(name)
        return node if node is not None and node.op in ops else None

    @staticmethod
    def data(node) -> list[str]:
        return [i for i in node.input if not i.startswith("^")]

    def param(self, tensor: str) -> int | None:
        """The loop variable tensor is, else None."""
        name, port = self.origin(tensor)
        return self.params.index(name) if port == 0 and name in self.params else None

    def const(self, tensor: str) -> np.ndarray | None:
        node = self.node(tensor, "Const")
        return None if node is None else np.asarray(attr_value(node.attr["value"]))

    def readers(self, k: int) -> list:
        """The nodes (Identity and ReadVariableOp passed through) that read loop variable k."""
        return [x for x in self.nodes.values() if x.op not in _PASS
                and any(self.param(i) == k for i in self.data(x))]

    def unary(self, tensor: str, op: str) -> Tensor | None:
        """What op(input) behind tensor reads."""
        node = self.node(tensor, op)
        return None if node is None else self.origin(self.data(node)[0])

    def pair(self, node, first: str, second: str) -> tuple[Tensor, Tensor] | None:
        """(what first reads, what second reads) when node is first(a) * second(b)."""
        if node is None or len(self.data(node)) != 2:
            return None
        a, b = self.data(node)
        for x, y in ((a, b), (b, a)):
            u, v = self.unary(x, first), self.unary(y, second)
            if u is not None and v is not None:
                return u, v
        return None
