"""--compress_to_fp16: store float32 Consts as f16 followed by Convert(f32) marked
`decompression`, as OpenVINO's own compression writes it (in sub-graph bodies too; single
values too). The Const keeps its float32 value, marked `store_as_f16`: the IR writer converts
each one as it writes it, so the half copies of all weights are never held at once.

A Const that f16 cannot hold stays float32, as ovc keeps it: one with a value beyond f16's
range (it would become 65504 or inf), or one whose nonzero values are mostly below f16's
smallest normal (they would become subnormals, or zero, and change the result); and one read
only by ops marked `keep_unfolded`. A quantized model (one with a FakeQuantize, or integer
weights dequantized: int8 scales and zero points, FakeQuantize bounds) keeps every float Const
in float32, as ovc leaves it (checked with ONNX QDQ and int8-weight models): the weights stay
their exact real values."""

from __future__ import annotations

import numpy as np

from converter.graph.graph import Graph
from converter.middle.subgraphs import bodies_of
from converter.ops.op import Op

__all__ = ["compress_to_fp16"]


_F16_MAX = float(np.finfo(np.float16).max)
_F16_NORMAL = float(np.finfo(np.float16).tiny)  # smallest normal, 6.1e-5
_CHUNK = 1 << 20


def fp16_holds(value: np.ndarray) -> bool:
    """Whether f16 holds this float32 value well enough to store it so (read in chunks: no
    second copy of a large weight)."""
    flat = value.reshape(-1)
    nonzero = small = 0
    for start in range(0, flat.size, _CHUNK):
        a = np.abs(flat[start:start + _CHUNK])
        a = a[np.isfinite(a) & (a != 0)]
        if a.size and float(a.max()) > _F16_MAX:
            return False
        nonzero += a.size
        small += int(np.count_nonzero(a < _F16_NORMAL))
    return small <= 0.75 * nonzero


def _quantized(graph: Graph) -> bool:
    """A FakeQuantize, or integer weights dequantized (a Convert of an integer Const marked
    `keep_unfolded`), here or in a sub-graph body."""
    for node in graph.get_op_nodes():
        if node.soft_get("op") == "FakeQuantize":
            return True
        if node.soft_get("op") == "Convert" and node.soft_get("keep_unfolded", False):
            source = node.in_port(0).get_source().node
            if source.soft_get("op") == "Const" and np.asarray(source.value).dtype.kind in "iu":
                return True
    return any(_quantized(body) for body in bodies_of(graph))


def compress_to_fp16(graph: Graph) -> tuple[int, int]:
    """Compress the graph's float32 Consts unless the model is quantized; (compressed, kept in
    float32 because f16 cannot hold them)."""
    if _quantized(graph):
        return 0, 0
    return _compress(graph)


def _compress(graph: Graph) -> tuple[int, int]:
    compressed = kept = 0
    for const in graph.get_op_nodes(op="Const"):
        value = np.asarray(const.value)
        if value.dtype != np.float32:
            continue
        data = next(d for _, d in const.iter_out_data())
        consumers = list(graph.out_edges(data.id, keys=True, data=True))
        if all(graph.nodes[v].get("op") == "ShapeOf" for _, v, _, _ in consumers):
            continue
        if all(graph.nodes[v].get("keep_unfolded") for _, v, _, _ in consumers):
            continue  # the scale or zero point of int8 weights: OpenVINO reads it in f32
        if not fp16_holds(value):
            kept += 1
            continue
        compressed += 1
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
        inner = _compress(body)
        compressed, kept = compressed + inner[0], kept + inner[1]
    return compressed, kept
