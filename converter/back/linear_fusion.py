"""Per-channel linear ops folded into their neighbours' constants, in float32, before weights
are compressed, as OpenVINO's own converter and the legacy MO do: a BatchNormInference with
constant statistics becomes Multiply + Add by its scale and shift; an Add by a constant
followed by a Multiply by a constant swaps to Multiply then Add; chains of Multiply (or Add) by
constants merge; and a Multiply by a per-output-channel constant after a Convolution,
GroupConvolution or MatMul goes into the weights. Each fp16 weight is then rounded once,
after the arithmetic, instead of each factor being rounded on its own."""

from __future__ import annotations

import numpy as np

from converter.back._fusion_ports import new_const, sole_consumer
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.middle.subgraphs import bodies_of
from converter.ops.nn.batch_norm import batch_norm_affine
from converter.ops.op import Op

__all__ = ["fuse_linear_ops"]

_WEIGHTED = {"Convolution", "GroupConvolution", "MatMul"}


def _f32(port: Port | None) -> np.ndarray | None:
    """The float32 value of the Const behind port, or None (int8 weights' dequantization,
    kept unfolded, is not a Const)."""
    if port is None or port.node.soft_get("op") != "Const":
        return None
    value = np.asarray(port.data.get_value())
    return value if value.dtype == np.float32 else None


def _operands(node: Node) -> tuple[Port, np.ndarray] | None:
    """(the variable input, the constant) of a binary op with one float32 constant input that
    does not change the variable's shape."""
    if len(node.in_ports()) != 2 or node.soft_get("auto_broadcast", "numpy") != "numpy":
        return None
    sources = [node.in_port(i).get_source() for i in (0, 1)]
    for var, const in (sources, sources[::-1]):
        value = _f32(const)
        shape = None if var is None else var.data.get_shape()
        if value is not None and _f32(var) is None and _keeps(shape, value.shape) \
                and var.data.get_data_type() == np.float32:
            return var, value
    return None


def _keeps(shape: tuple[int, ...] | None, other: tuple[int, ...]) -> bool:
    """Whether broadcasting `other` against `shape` (-1 for a dynamic dimension) leaves it."""
    if shape is None or len(other) > len(shape):
        return False
    return all(d == 1 or d == s != -1 for d, s in zip(other[::-1], shape[::-1]))


def _replace(graph: Graph, old: Node, new: Node) -> None:
    """new takes over old's consumers and output tensor names; old and what fed only it go."""
    new.out_port(0).add_tensor_names(old.out_port(0).get_tensor_names())
    old.out_port(0).remove_tensor_names()
    old.out_port(0).get_connection().set_source(new.out_port(0))
    _remove_unused(graph, old)


def _remove_unused(graph: Graph, node: Node) -> None:
    """node, if nothing consumes it any longer, and what fed only it."""
    stack = [node]
    while stack:
        node = stack.pop()
        if node.soft_get("op") == "Parameter" or node.id not in graph or any(
                node.out_port(p).get_destinations() for p in node.out_ports()):
            continue
        stack += [s.node for s in (node.in_port(i).get_source() for i in node.in_ports()) if s]
        graph.remove_nodes_from([node.id, *(d.id for _, d in node.iter_out_data())])


def _binary(graph: Graph, op: str, x: Port, value: np.ndarray, name: str) -> Node:
    node = Op.builtin_ops[op](graph).create_node([x, new_const(graph, value, name + "/value")],
                                                 attrs={"name": name})
    node.infer(node)
    return node


def _decompose_batch_norm(graph: Graph, bn: Node) -> bool:
    x = bn.in_port(0).get_source()
    stats = [_f32(bn.in_port(i).get_source()) for i in range(1, 5)]
    shape = x.data.get_shape() if x is not None else None
    if any(s is None for s in stats) or shape is None or len(shape) < 2:
        return False
    scale, shift = batch_norm_affine(bn.soft_get("epsilon", 1e-5), *stats, len(shape))
    name = bn.soft_get("name", bn.id)
    mul = _binary(graph, "Multiply", x, scale.astype(np.float32), name + "/scale")
    _replace(graph, bn, _binary(graph, "Add", mul.out_port(0), shift.astype(np.float32), name))
    return True


def _swap_add_mul(graph: Graph, add: Node) -> bool:
    """Add(x, a) -> Multiply(., m): Multiply(x, m) -> Add(., a * m)."""
    found, mul = _operands(add), sole_consumer(add.out_port(0))
    scaled = _operands(mul) if mul is not None and mul.soft_get("op") == "Multiply" else None
    if found is None or scaled is None or scaled[0] != add.out_port(0):
        return False
    x, shift = found
    name = mul.soft_get("name", mul.id)
    first = _binary(graph, "Multiply", x, scaled[1], name + "/scale")
    _replace(graph, mul, _binary(graph, "Add", first.out_port(0), shift * scaled[1], name))
    return True


def _merge_chain(graph: Graph, node: Node) -> bool:
    """op(op(x, a), b) with op Multiply or Add: op(x, a (op) b)."""
    kind = node.soft_get("op")
    found, nxt = _operands(node), sole_consumer(node.out_port(0))
    second = _operands(nxt) if nxt is not None and nxt.soft_get("op") == kind else None
    if found is None or second is None or second[0] != node.out_port(0):
        return False
    value = found[1] * second[1] if kind == "Multiply" else found[1] + second[1]
    _replace(graph, nxt, _binary(graph, kind, found[0], value, nxt.soft_get("name", nxt.id)))
    return True


def _channel_scale(weighted: Node, value: np.ndarray) -> np.ndarray | None:
    """The factor per output channel of `weighted` that value multiplies its output by."""
    rank = len(weighted.out_port(0).data.get_shape())
    axis = rank - 1 if weighted.soft_get("op") == "MatMul" else 1
    others = [d for i, d in enumerate(value.shape[::-1]) if rank - 1 - i != axis]
    return value.reshape(-1) if all(d == 1 for d in others) else None


def _scaled_weights(weighted: Node, weights: np.ndarray, factor: np.ndarray) -> np.ndarray | None:
    op = weighted.soft_get("op")
    if op == "Convolution":
        return weights * factor.reshape((-1,) + (1,) * (weights.ndim - 1))
    if op == "GroupConvolution":
        groups, per_group = weights.shape[:2]
        per = np.broadcast_to(factor, (groups * per_group,)).reshape(groups, per_group)
        return weights * per.reshape(per.shape + (1,) * (weights.ndim - 2))
    if weighted.soft_get("transpose_b", False) or weights.ndim < 2:
        return weights * factor.reshape(-1, 1) if weights.ndim >= 2 else None
    return weights * factor


def _into_weights(graph: Graph, mul: Node) -> bool:
    """Multiply(weighted(x, W), c per output channel) -> weighted(x, W * c)."""
    found = _operands(mul)
    weighted = found[0].node if found is not None else None
    consumer = None if weighted is None else sole_consumer(weighted.out_port(0))
    if consumer is None or consumer.id != mul.id or weighted.soft_get("op") not in _WEIGHTED:
        return False
    weights = _f32(weighted.in_port(1).get_source())
    factor = None if weights is None else _channel_scale(weighted, found[1])
    scaled = None if factor is None else _scaled_weights(weighted, weights, factor)
    if scaled is None or scaled.shape != weights.shape:
        return False
    old = weighted.in_port(1).get_source().node
    name = old.soft_get("name", "weights")
    weighted.in_port(1).disconnect()
    _remove_unused(graph, old)  # the unscaled weights, unless something else reads them
    new_const(graph, scaled.astype(np.float32), name + "/scaled").connect(weighted.in_port(1))
    weighted.out_port(0).remove_tensor_names()  # ovc's new op has the Multiply's names only
    _replace(graph, mul, weighted)
    return True


def fuse_linear_ops(graph: Graph) -> int:
    """Fold the graph's per-channel linear ops (see the module's docstring); the number of
    rewrites."""
    done = sum(_decompose_batch_norm(graph, bn)
               for bn in graph.get_op_nodes(op="BatchNormInference"))
    rules = {"Add": (_swap_add_mul, _merge_chain), "Multiply": (_merge_chain, _into_weights)}
    changed = True
    while changed:
        changed = False
        for node in graph.get_op_nodes():
            if node.id in graph and any(rule(graph, node)
                                        for rule in rules.get(node.soft_get("op"), ())):
                changed, done = True, done + 1
    return done + sum(fuse_linear_ops(body) for body in bodies_of(graph))
