"""GraphBody: a sub-graph op's body as conversion holds it (a Graph of Parameters, ops and
Results), with the `infer` the op definitions call; the walk over every body of a graph; and
inlining the branch an If with a constant condition takes."""

from __future__ import annotations

from collections.abc import Hashable, Iterator

import numpy as np

from converter.graph.graph import Graph, Node
from converter.middle.partial_infer import partial_infer
from converter.ops.control._body import PortMap, Spec

__all__ = ["GraphBody", "bodies_of", "inline_constant_ifs"]


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


def inline_constant_ifs(graph: Graph) -> None:
    """Replace each If whose condition inference found constant by the branch it takes."""
    while True:
        node = next((n for n in graph.get_op_nodes(op="If")
                     if n.in_port(0).data.get_value() is not None), None)
        if node is None:
            return
        cond = bool(np.asarray(node.in_port(0).data.get_value()).ravel()[0])
        taken = "then_body" if cond else "else_body"
        _inline(node, node["bodies"][taken].graph, node["port_maps"][taken])


def _inline(node: Node, body: Graph, port_map: PortMap) -> None:
    """Move body's nodes into node's graph in node's place: its Parameters read the op's
    inputs, its Results' values feed the op's consumers."""
    graph = node.graph
    moved: dict[Hashable, str] = {}
    for rule in port_map.external_inputs():
        param_data = next(iter(body.successors(rule.internal)), None)
        if param_data is not None:
            moved[param_data] = node.in_port(rule.external).data_node().id
    skip = {n for n, d in body.nodes(data=True) if d.get("op") in ("Parameter", "Result")}
    for nid, attrs in body.nodes(data=True):
        if nid not in skip and nid not in moved:
            moved[nid] = graph.unique_id(str(nid))
            graph.add_node(moved[nid], **attrs)
    for u, v, attrs in body.edges(data=True):
        if u not in skip and v not in skip:
            graph.add_edge(moved[u], moved[v], **attrs)
    for rule in port_map.external_outputs():
        source = moved[next(iter(body.predecessors(rule.internal)))]
        out_data = node.out_port(rule.external).data_node()
        for _, consumer, attrs in list(graph.out_edges(out_data.id, data=True)):
            graph.add_edge(source, consumer, **attrs)
        names = node._ports("out").get(rule.external, {}).get("fw_tensor_debug_info", [])
        produced = list(graph.in_edges(source, data=True))
        if names and produced:
            producer, _, attrs = produced[0]
            Node(graph, producer).out_port(attrs["out"]).add_tensor_names([t for _, t in names])
    graph.remove_nodes_from([d.id for _, d in node.iter_out_data()] + [node.id])
