"""A ConvertLike whose like-input's element type is known after inference becomes a Convert to
that type, as ovc's frontends write it where they know the type (a ConvertLike on constants
has already folded)."""

from __future__ import annotations

from converter.back._fusion_ports import new_op, remove_unused, source
from converter.graph.graph import Graph
from converter.middle.subgraphs import bodies_of

__all__ = ["resolve_convert_like"]


def resolve_convert_like(graph: Graph) -> None:
    for node in graph.get_op_nodes(op="ConvertLike"):
        data, like = source(node, 0), source(node, 1)
        dtype = None if like is None else like.data.get_data_type()
        if data is None or dtype is None:
            continue
        out = new_op(graph, "Convert", [data], node.soft_get("name", node.id),
                     {"destination_type": dtype})
        out.add_tensor_names(node.out_port(0).get_tensor_names())
        node.out_port(0).remove_tensor_names()
        node.out_port(0).get_connection().set_source(out)
        remove_unused(graph, node)
    for body in bodies_of(graph):
        resolve_convert_like(body)
