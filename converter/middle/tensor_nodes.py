"""Insert a data node per op output port: op -> data (out) -> op (in), in sub-graph bodies too.
MO's create_tensor_nodes."""

from __future__ import annotations

from converter.graph.graph import Graph
from converter.middle.subgraphs import bodies_of

__all__ = ["create_tensor_nodes", "has_tensor_nodes"]


def has_tensor_nodes(graph: Graph) -> bool:
    return any(d.get("kind") == "data" for _, d in graph.nodes(data=True))


def create_tensor_nodes(graph: Graph) -> None:
    """The front-stage graph (and its bodies) with data nodes; a graph that has them (a legacy
    CreateTensorNodes made them in the front passes) stays as it is."""
    if has_tensor_nodes(graph):
        return
    ops = [nid for nid, d in graph.nodes(data=True) if d.get("kind") == "op"]
    for nid in ops:
        by_port: dict[int, list[tuple[str, dict]]] = {}
        for _, v, d in graph.out_data(nid):
            by_port.setdefault(d["out"], []).append((v, d))
        ports = set(by_port) | set(graph.nodes[nid].get("_out_ports", {}))
        if graph.nodes[nid].get("op") == "Result":
            ports = set()
        for port in sorted(ports):
            graph.remove_edges_where(nid, "out", port)
            data_id = graph.add_data_node(nid, port)
            for v, d in by_port.get(port, []):
                attrs = dict(d)
                del attrs["out"]
                graph.add_edge(data_id, v, **attrs)
    graph.stage = "middle"
    for body in bodies_of(graph):
        create_tensor_nodes(body)
