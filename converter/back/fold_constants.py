"""Replace every op whose outputs are all known constants by Const ops (partial inference
already computed the values with each op's evaluate), in sub-graph bodies too; an If whose
condition is constant becomes the branch it takes. An op marked `keep_unfolded` stays: the
Convert/Subtract/Multiply that dequantize int8 weights, which OpenVINO's CPU plugin reads as
int8 weights only in that form."""

from __future__ import annotations

import numpy as np

from converter.graph.graph import Graph
from converter.middle.subgraphs import bodies_of, inline_constant_ifs
from converter.ops.op import Op

__all__ = ["fold_constants"]

_KEEP = {"Const", "Parameter", "Result"}


def fold_constants(graph: Graph) -> None:
    inline_constant_ifs(graph)
    for node in graph.get_op_nodes():
        if node.soft_get("op") in _KEEP or node.soft_get("keep_unfolded", False):
            continue
        outs = list(node.iter_out_data())
        if not outs or any(d.soft_get("value", None) is None for _, d in outs):
            continue
        name = node.soft_get("name", node.id)
        for port, data in outs:
            const = Op.builtin_ops["Const"](graph).add_node(
                {"name": name if len(outs) == 1 else f"{name}/{port}",
                 "value": np.asarray(data.value)}
            )
            names = node._port_view("out").get(port, {}).get("fw_tensor_debug_info")
            if names:
                const.out_port(0).add_tensor_names([t for _, t in names])
            graph.remove_edge(node.id, data.id)
            graph.add_edge(const.id, data.id, out=0)
    graph.clean_up()
    for body in bodies_of(graph):
        fold_constants(body)
