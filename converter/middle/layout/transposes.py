"""The middle pass that makes an NHWC model's inside NCHW by moving and cancelling the
Transposes the front phase put around channels-last ops (see the package docstring)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.middle.replacement import MiddleReplacementPattern, PostMiddleStart
from converter.ops.elementwise._base import BinaryOp, UnaryOp
from converter.ops.op import Op

__all__ = ["LayoutChangeNHWCtoNCHW", "in_nchw_part"]

_PASS_THROUGH = {"Convert"}
_CHANGED = "layout_changed_to_nchw"  # graph fact: change_layout ran
_REDUCE = {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
           "ReduceL2", "ReduceLogicalAnd", "ReduceLogicalOr"}


def _inverse(perm: list[int]) -> list[int]:
    return [int(i) for i in np.argsort(perm)]


def _const(graph: Graph, value: np.ndarray, name: str) -> Port:
    node = Op.builtin_ops["Const"](graph).create_node(
        attrs={"name": name, "value": np.asarray(value)}
    )
    node.infer(node)
    return node.out_port(0)


def _transpose(graph: Graph, src: Port, perm: list[int], name: str) -> Node:
    """A marked Transpose fed by src (its consumers are left to the caller)."""
    perm_port = _const(graph, np.array(perm, dtype=np.int64), name + "/order")
    return Op.builtin_ops["Transpose"](graph).create_node(
        [src, perm_port], attrs={"name": name, "layout_transpose": True})


def _perm(node: Node) -> list[int] | None:
    if node.soft_get("op") != "Transpose":
        return None
    value = node.in_port(1).data.get_value()
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def _marked_perm(port: Port | None) -> list[int] | None:
    if port is None or not port.node.has_and_set("layout_transpose"):
        return None
    return _perm(port.node)


def _move_tensor_facts(old: Port, new: Port) -> None:
    """The framework's tensor names and the rt_info (--layout) of old now belong to new."""
    new.add_tensor_names(old.get_tensor_names())
    old.remove_tensor_names()
    info = old.node._ports("out").get(old.idx, {}).pop("rt_info", None)
    if info:
        new.node._ports("out").setdefault(new.idx, {}).setdefault("rt_info", {}).update(info)


def _insert_after(graph: Graph, node: Node, perm: list[int]) -> None:
    """node.out 0 -> marked Transpose(perm) -> node's former consumers. The framework's tensor
    names move to the Transpose, whose output holds the tensor in the framework's layout."""
    out = node.out_port(0)
    dests = out.get_destinations()
    t = _transpose(graph, out, perm, f"{node.soft_get('name', node.id)}/layout_transpose")
    _move_tensor_facts(out, t.out_port(0))
    for dst in dests:
        t.out_port(0).connect(dst)


# -- rules: consumer of a marked Transpose (source src, perm p) ------------------------------
Rule = Callable[[Graph, Port, Port, list[int]], bool]


def _unary(graph: Graph, dst: Port, src: Port, p: list[int]) -> bool:
    node = dst.node
    if dst.idx != 0 or len([q for q in node.in_ports().values() if not q.disconnected()]) != 1:
        return False
    src.connect(node.in_port(0))
    _insert_after(graph, node, p)
    return True


def _permuted_const(value: np.ndarray, p: list[int]) -> np.ndarray | None:
    """A constant broadcast against an NHWC tensor, for the same op on the NCHW tensor."""
    value = np.asarray(value)
    if value.ndim > len(p):
        return None
    full = value.reshape((1,) * (len(p) - value.ndim) + value.shape)
    return np.ascontiguousarray(np.transpose(full, _inverse(p)))


def _binary(graph: Graph, dst: Port, src: Port, p: list[int]) -> bool:
    node = dst.node
    other = node.in_port(1 - dst.idx)
    other_src = other.get_source()
    if other_src is None:
        return False
    if _marked_perm(other_src) == p:
        new_other = other_src.node.in_port(0).get_source()
    else:
        value = other.data.get_value()
        permuted = None if value is None else _permuted_const(value, p)
        if permuted is None:
            return False
        new_other = _const(graph, permuted.astype(np.asarray(value).dtype),
                           f"{node.soft_get('name')}/nchw_const")
    src.connect(dst)
    new_other.connect(other)
    _insert_after(graph, node, p)
    return True


def _concat(graph: Graph, dst: Port, src: Port, p: list[int]) -> bool:
    node = dst.node
    rank = len(p)
    feeds = []
    for port in node.in_ports().values():
        s = port.get_source()
        if s is None:
            continue
        if _marked_perm(s) == p:
            feeds.append((port, s.node.in_port(0).get_source()))
            continue
        value = port.data.get_value()
        if value is None or np.ndim(value) != rank:
            return False
        const = _const(graph, _permuted_const(value, p), f"{node.soft_get('name')}/nchw_const")
        feeds.append((port, const))
    for port, s in feeds:
        s.connect(port)
    node["axis"] = p[int(node.soft_get("axis", 0)) % rank]
    _insert_after(graph, node, p)
    return True


def _reduce(graph: Graph, dst: Port, src: Port, p: list[int]) -> bool:
    node = dst.node
    axes = node.in_port(1).data.get_value() if dst.idx == 0 else None
    if axes is None:
        return False
    rank = len(p)
    axes = sorted({int(a) % rank for a in np.asarray(axes).reshape(-1)})
    src.connect(node.in_port(0))
    _const(graph, np.array([p[a] for a in axes], dtype=np.int64),
           f"{node.soft_get('name')}/nchw_axes").connect(node.in_port(1))
    if node.soft_get("keep_dims", False):
        _insert_after(graph, node, p)
        return True
    kept = [a for a in range(rank) if a not in axes]
    order = sorted(p[a] for a in kept)
    q = [order.index(p[a]) for a in kept]
    if q != list(range(len(q))):
        _insert_after(graph, node, q)
    return True


def _pad(graph: Graph, dst: Port, src: Port, p: list[int]) -> bool:
    node = dst.node
    if dst.idx != 0:
        return False
    values = [node.in_port(i).data.get_value() for i in (1, 2)]
    if any(v is None for v in values):
        return False
    inv = _inverse(p)
    src.connect(node.in_port(0))
    for i, v in zip((1, 2), values):
        v = np.asarray(v).reshape(-1)
        _const(graph, v[inv], f"{node.soft_get('name')}/nchw_pads_{i}").connect(node.in_port(i))
    _insert_after(graph, node, p)
    return True


def _gather(graph: Graph, dst: Port, src: Port, p: list[int]) -> bool:
    node = dst.node
    axis = node.in_port(2).data.get_value()
    idx = node.in_port(1).data.get_value()
    if (dst.idx != 0 or axis is None or idx is None or np.ndim(idx) != 1
            or node.soft_get("batch_dims", 0)):
        return False
    src.connect(node.in_port(0))
    new_axis = p[int(np.asarray(axis).reshape(-1)[0]) % len(p)]
    axis_port = _const(graph, np.array(new_axis, dtype=np.int64),
                       f"{node.soft_get('name')}/nchw_axis")
    axis_port.connect(node.in_port(2))
    _insert_after(graph, node, p)
    return True


def _interpolate(graph: Graph, dst: Port, src: Port, p: list[int]) -> bool:
    """Interpolate-11 on constant axes: the same sizes or scales on the permuted axes."""
    node = dst.node
    axes = node.in_port(2).data.get_value() if dst.idx == 0 and 2 in node.in_ports() else None
    if axes is None or node.soft_get("version") != "opset11":
        return False
    src.connect(node.in_port(0))
    rank = len(p)
    _const(graph, np.array([p[int(a) % rank] for a in np.asarray(axes).reshape(-1)], np.int64),
           f"{node.soft_get('name')}/nchw_axes").connect(node.in_port(2))
    _insert_after(graph, node, p)
    return True


def _cancel(graph: Graph, dst: Port, src: Port, p: list[int]) -> bool:
    node = dst.node
    p2 = _perm(node)
    if p2 is None or [p[i] for i in p2] != list(range(len(p))):
        return False
    _move_tensor_facts(node.out_port(0), src)
    node.out_port(0).get_connection().set_source(src)
    return True


def _rule(node: Node) -> Rule | None:
    op = node.soft_get("op")
    if op == "Transpose":
        return _cancel
    if op == "Concat":
        return _concat
    if op in _REDUCE:
        return _reduce
    if op == "Pad":
        return _pad
    if op == "Gather":
        return _gather
    if op == "Interpolate":
        return _interpolate
    cls = Op.of_node(node)
    if op in _PASS_THROUGH or (cls is not None and issubclass(cls, UnaryOp) and op != "PReLU"):
        return _unary
    if cls is not None and issubclass(cls, BinaryOp):
        return _binary
    return None


def _sweep(graph: Graph) -> int:
    """Apply a rule at each layout Transpose that has one; the number applied."""
    applied = 0
    for t in graph.get_op_nodes(op="Transpose"):
        if t.id not in graph or not t.has_and_set("layout_transpose"):
            continue
        p = _perm(t)
        src = t.in_port(0).get_source()
        if p is None or src is None:
            continue
        for dst in t.out_port(0).get_destinations():
            rule = _rule(dst.node)
            if rule is not None and rule(graph, dst, src, p):
                applied += 1
                break  # t's consumers changed: on to the next Transpose
    return applied


def _merge_twins(graph: Graph) -> None:
    """Marked Transposes of one tensor with the same order become one (an NHWC input that
    feeds several convolutions gets one Transpose, as in MO)."""
    for t in graph.get_op_nodes(op="Transpose"):
        src = t.in_port(0).get_source()
        p = _marked_perm(t.out_port(0))
        if src is None or p is None or not t.out_port(0).get_destinations():
            continue
        for dst in src.get_destinations():
            twin = dst.node
            if twin.id != t.id and dst.idx == 0 and _marked_perm(twin.out_port(0)) == p:
                _move_tensor_facts(twin.out_port(0), t.out_port(0))
                twin.out_port(0).get_connection().set_source(t.out_port(0))


def change_layout(graph: Graph) -> None:
    """Sink and cancel the layout Transposes (the pass runner re-infers shapes afterwards:
    force_shape_inference). Parameters and Results keep the model's layout."""
    _merge_twins(graph)
    while _sweep(graph):
        graph.clean_up()
    graph.clean_up()
    graph.graph["layout"] = "NCHW"
    graph.graph[_CHANGED] = True


def in_nchw_part(port: Port) -> bool:
    """Whether the tensor of output port is NCHW where the model had it channels-last: once the
    layout changed, a tensor downstream of a layout Transpose to NCHW (first inputs up to it)
    before any back to the model's layout. Elsewhere tensors keep the model's layout."""
    node = port.node
    if not node.graph.graph.get(_CHANGED):
        return False
    for _ in range(10_000):
        p = _marked_perm(node.out_port(0)) if node.soft_get("op") == "Transpose" else None
        if p is not None:
            return p[0] == 0 and p[1] == len(p) - 1  # channels moved to axis 1
        if 0 not in node.in_ports() or node.in_port(0).disconnected():
            return False
        node = node.in_port(0).get_source().node
    return False


class LayoutChangeNHWCtoNCHW(MiddleReplacementPattern):
    """MO's NHWC->NCHW change inside channels-last models; skipped when no op needs it. It runs
    where MO's layout passes ran, after PostMiddleStart: middle passes see the model's layout."""

    enabled = True

    def run_after(self):
        return [PostMiddleStart]

    def run_before(self):
        return []
    force_shape_inference = True
    graph_condition = [lambda graph: graph.graph.get("layout") == "NHWC"]

    def find_and_replace_pattern(self, graph: Graph) -> None:
        change_layout(graph)
