"""--compress_to_fp16: store float32 Consts as f16 followed by Convert(f32) marked
`decompression`, as OpenVINO's own compression writes it (in sub-graph bodies too). The Const
keeps its float32 value, marked `store_as_f16`: the IR writer converts each one as it writes
it, so the half copies of all weights are never held at once."""

from __future__ import annotations

import numpy as np

from converter.graph.graph import Graph
from converter.middle.subgraphs import bodies_of
from converter.ops.op import Op

__all__ = ["compress_to_fp16"]


def compress_to_fp16(graph: Graph) -> None:
    for const in graph.get_op_nodes(op="Const"):
        value = np.asarray(const.value)
        if value.dtype != np.float32 or value.size < 2:
            continue
        data = next(d for _, d in const.iter_out_data())
        consumers = list(graph.out_edges(data.id, keys=True, data=True))
        if all(graph.nodes[v].get("op") == "ShapeOf" for _, v, _, _ in consumers):
            continue
        name = const.soft_get("name", const.id)
        const["store_as_f16"] = True
        const["name"] = f"{name}_compressed"
        data["data_type"] = np.dtype(np.float16)
        convert = Op.builtin_ops["Convert"](graph).add_node(
            {"name": name, "destination_type": np.dtype(np.float32),
             "rt_info": {"decompression": {}}}
        )
        out = graph.add_data_node(convert.id, 0, shape=tuple(value.shape),
                                  data_type=np.dtype(np.float32))
        for _, v, k, d in consumers:
            graph.remove_edge(data.id, v, k)
            graph.add_edge(out, v, **d)
        graph.add_edge(data.id, convert.id, **{"in": 0})
        names = const._ports("out").get(0, {}).pop("fw_tensor_debug_info", None)
        if names:
            convert.out_port(0).add_tensor_names([t for _, t in names])
    for body in bodies_of(graph):
        compress_to_fp16(body)
