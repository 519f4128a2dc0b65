"""GraphBody: a sub-graph op's body as conversion holds it (a Graph of Parameters, ops and
Results), with the `infer` the op definitions call; and the walk over every body of a graph."""

from __future__ import annotations

from collections.abc import Hashable, Iterator

import numpy as np

from converter.graph.graph import Graph, Node
from converter.middle.partial_infer import partial_infer
from converter.ops.control._body import Spec

__all__ = ["GraphBody", "bodies_of"]


class GraphBody:
    """A body Graph; port maps name its Parameter and Result nodes by node id."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def infer(self, feed: dict[Hashable, Spec]) -> dict[Hashable, Spec]:
        """Shapes, types and constant values of the Results, the Parameters given `feed`."""
        for pid, spec in feed.items():
            node = Node(self.graph, pid)
            node["shape"] = spec.shape
            node["element_type"] = np.dtype(spec.dtype) if spec.dtype is not None else None
        partial_infer(self.graph)
        out = {}
        for result in self.graph.get_op_nodes(op="Result"):
            data = result.in_port(0).data
            out[result.id] = Spec(data.get_shape(), data.get_data_type(), data.get_value())
        return out


def bodies_of(graph: Graph) -> Iterator[Graph]:
    """The body graphs of graph's sub-graph ops (not nested deeper)."""
    for _, attrs in graph.nodes(data=True):
        for body in (attrs.get("bodies") or {}).values():
            yield body.graph
