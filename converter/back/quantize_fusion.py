"""FakeQuantize -> Convert to an integer type -> Convert to float -> [Subtract zero point] ->
Multiply by scale, the quantize-dequantize pair of a QDQ model, becomes one FakeQuantize whose
output range is the dequantized one, as ovc's ConvertQuantizeDequantize makes it: the
FakeQuantize's output bounds are the integer type's, its levels that many values, zero point
and scale constants, each op in between used only there."""

from __future__ import annotations

import numpy as np

from converter.back._fusion_ports import (
    const_array,
    const_operand,
    new_const,
    remove_unused,
    replace_root,
    sole_consumer,
    source,
)
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.middle.subgraphs import bodies_of

__all__ = ["fuse_quantize_dequantize"]


def _only_consumer(port: Port, op: str) -> Node | None:
    node = sole_consumer(port)
    return node if node is not None and node.soft_get("op") == op else None


def _fuse(graph: Graph, fq: Node) -> bool:
    to_int = _only_consumer(fq.out_port(0), "Convert")
    dtype = None if to_int is None else np.dtype(to_int.soft_get("destination_type"))
    if dtype is None or dtype.kind not in "iu":
        return False
    low, high = (const_array(source(fq, i)) for i in (3, 4))
    limits = np.iinfo(dtype)
    if (low is None or high is None or np.any(low != limits.min) or np.any(high != limits.max)
            or fq.soft_get("levels") != int(limits.max) - int(limits.min) + 1):
        return False
    to_float = _only_consumer(to_int.out_port(0), "Convert")
    if to_float is None or np.dtype(to_float.soft_get("destination_type")).kind != "f":
        return False
    last, zero = to_float, np.float32(0)
    sub = _only_consumer(last.out_port(0), "Subtract")
    if sub is not None:
        found = const_operand(sub)
        if found is None:
            return False
        last, zero = sub, const_array(found[1])
    mul = _only_consumer(last.out_port(0), "Multiply")
    found = const_operand(mul)
    if found is None:
        return False
    scale = const_array(found[1])
    bounds = [new_const(graph, ((np.float32(b) - zero) * scale).astype(np.float32),
                        f"{mul.soft_get('name')}/{side}")
              for b, side in ((limits.min, "low"), (limits.max, "high"))]
    inputs = [source(fq, i) for i in range(3)] + bounds
    if replace_root(graph, mul, "FakeQuantize", inputs, {"levels": fq.soft_get("levels")}):
        return True
    for bound in bounds:
        remove_unused(graph, bound.node)
    return False


def fuse_quantize_dequantize(graph: Graph) -> None:
    for fq in graph.get_op_nodes(op="FakeQuantize"):
        if fq.id in graph:
            _fuse(graph, fq)
    for body in bodies_of(graph):
        fuse_quantize_dequantize(body)
