"""Front-phase transformation bases (MO names): FrontReplacementPattern, ...Subgraph, ...Op."""

from __future__ import annotations

from typing import ClassVar

from converter.front.mo_names import aliased
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.passes import Anchor, ReplacementPattern

__all__ = [
    "FrontFinish",
    "FrontReplacementOp",
    "FrontReplacementPattern",
    "FrontReplacementSubgraph",
    "FrontStart",
]


class FrontReplacementPattern(ReplacementPattern):
    phase = "front"

    def run_after(self):
        return [FrontStart]

    def run_before(self):
        return [FrontFinish]


class FrontStart(Anchor, FrontReplacementPattern):
    """Anchor: user front transformations run after it."""


class FrontFinish(Anchor, FrontReplacementPattern):
    """Anchor: the end of the front phase."""

    def run_after(self):
        return [FrontStart]


class FrontReplacementSubgraph(FrontReplacementPattern):
    """Match pattern(), call replace_sub_graph(graph, match)."""

    replacement_id: ClassVar[str] = "None"

    def find_and_replace_pattern(self, graph: Graph) -> None:
        from converter.graph.pattern import apply_pattern

        apply_pattern(graph, action=self.replace_sub_graph, **aliased(self.pattern()))

    def replace_sub_graph(self, graph: Graph, match: dict) -> None:
        self.replace_pattern(graph, match)


class FrontReplacementOp(FrontReplacementSubgraph):
    """Replace every node with op == `op`: replace_op(graph, node) returns the new outputs
    (node ids, Nodes, Ports or (node, port) pairs), one per output port of the old node."""

    op: ClassVar[str] = "UnknownOp"

    def pattern(self) -> dict:
        return {"nodes": [("op", {"op": type(self).op, "kind": "op"})], "edges": []}

    def replace_op(self, graph: Graph, node: Node) -> list:
        msg = f"{type(self).__name__} must implement replace_op(graph, node)"
        raise NotImplementedError(msg)

    def replace_sub_graph(self, graph: Graph, match: dict) -> None:
        node = match["op"]
        outputs = self.replace_op(graph, node)
        for idx, new in enumerate(outputs or []):
            port = _as_port(graph, new)
            if port is not None and idx in node.out_ports():
                node.out_port(idx).get_connection().set_source(port)
        graph.remove_node(node.id)


def _as_port(graph: Graph, new) -> Port | None:
    if isinstance(new, Port):
        return new
    if isinstance(new, Node):
        return new.out_port(0)
    if isinstance(new, tuple):
        return Node(graph, new[0] if isinstance(new[0], str) else new[0].id).out_port(new[1])
    if isinstance(new, str):
        return Node(graph, new).out_port(0)
    return None


for _base in (FrontReplacementPattern, FrontReplacementSubgraph, FrontReplacementOp):
    ReplacementPattern.excluded_replacers.append(_base)
