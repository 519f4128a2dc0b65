"""HSwish and HSigmoid written out in elementwise ops become one op, with the forms and
conditions of OpenVINO's HSwishFusion and HSigmoidFusion (so the IR holds what ovc's holds).
Constants are single-element; 3, 0 and 6 exact (to float32's epsilon), 1/6 within 1e-4.

HSigmoid(x): min(Relu(x + 3), 6) / 6, min(Relu(x + 3), 6) * 1/6, min(max(x + 3, 0), 6) / 6,
Clamp(x + 3, 0, 6) * 1/6 and Clamp(x + 3, 0, 6) / 6.
HSwish(x): x * min(Relu(x + 3), 6) / 6, x * min(Relu(x + 3), 6) * 1/6, x * HSigmoid(x) (the
HSigmoid used only there), and x * Clamp(x + 3, 0, 6), which is HSwish(x) * 6; a following
Multiply or Divide by a single-element constant folds into that 6, and a factor of exactly 1
goes (ovc merges the two and drops a Multiply by 1)."""

from __future__ import annotations

import numpy as np

from converter.back._fusion_ports import (
    const_array,
    fed_by,
    new_const,
    new_op,
    other_operand,
    remove_unused,
    replace_root,
    scalar,
    source,
    split_scalar,
    unary_input,
)
from converter.graph.graph import Graph, Node
from converter.graph.port import Port

__all__ = ["HSIGMOID_FUSIONS", "HSWISH_FUSIONS"]

_EPS = float(np.finfo(np.float32).eps)
_SIXTH_TOLERANCE = 1e-4


def _is(value: float | None, want: float, tolerance: float = _EPS) -> bool:
    return value is not None and abs(value - want) <= tolerance


def _by_const(node: Node | None, op: str, want: float, tolerance: float = _EPS) -> Port | None:
    """The variable input of node, when node is op with a constant `want` (a Divide's on its
    second input, a commuting op's on either)."""
    if node is None or node.soft_get("op") != op:
        return None
    if op == "Divide":
        value = scalar(source(node, 1))
        return source(node, 0) if _is(value, want, tolerance) else None
    found = split_scalar(node)
    return found[0] if found and _is(found[1], want, tolerance) else None


def _plus_three(port: Port | None) -> Port | None:
    """x, when port is x + 3."""
    return _by_const(fed_by(port, "Add"), "Add", 3.0)


def _relu6(port: Port | None) -> Port | None:
    """x, when port is min(Relu(x + 3), 6)."""
    relu = fed_by(_by_const(fed_by(port, "Minimum"), "Minimum", 6.0), "ReLU")
    return _plus_three(unary_input(relu, "ReLU"))


def _clamp_bounds(clamp: Node) -> tuple[float | None, float | None]:
    if clamp.has_valid("min") and clamp.has_valid("max"):
        return float(clamp["min"]), float(clamp["max"])
    return scalar(source(clamp, 1)), scalar(source(clamp, 2))


def _clamp6(port: Port | None) -> Port | None:
    """x, when port is Clamp(x + 3, 0, 6)."""
    clamp = fed_by(port, "Clamp")
    if clamp is None or _clamp_bounds(clamp) != (0.0, 6.0):
        return None
    return _plus_three(source(clamp, 0))


def _max_relu6(port: Port | None) -> Port | None:
    """x, when port is min(max(x + 3, 0), 6)."""
    top = _by_const(fed_by(port, "Minimum"), "Minimum", 6.0)
    return _plus_three(_by_const(fed_by(top, "Maximum"), "Maximum", 0.0))


def _hsigmoid(graph: Graph, root: Node, x: Port | None) -> bool:
    return x is not None and replace_root(graph, root, "HSigmoid", [x]) is not None


def _hsigmoid_relu_div(graph: Graph, root: Node) -> bool:
    return _hsigmoid(graph, root, _relu6(_by_const(root, "Divide", 6.0)))


def _hsigmoid_relu_mul(graph: Graph, root: Node) -> bool:
    return _hsigmoid(graph, root, _relu6(_by_const(root, "Multiply", 1 / 6, _SIXTH_TOLERANCE)))


def _hsigmoid_max_div(graph: Graph, root: Node) -> bool:
    return _hsigmoid(graph, root, _max_relu6(_by_const(root, "Divide", 6.0)))


def _hsigmoid_clamp_mul(graph: Graph, root: Node) -> bool:
    return _hsigmoid(graph, root, _clamp6(_by_const(root, "Multiply", 1 / 6, _SIXTH_TOLERANCE)))


def _hsigmoid_clamp_div(graph: Graph, root: Node) -> bool:
    return _hsigmoid(graph, root, _clamp6(_by_const(root, "Divide", 6.0)))


def _times_relu6(port: Port | None) -> Port | None:
    """x, when port is x * min(Relu(x + 3), 6)."""
    mul = fed_by(port, "Multiply")
    for side in (0, 1) if mul is not None else ():
        x = source(mul, 1 - side)
        if x is not None and _relu6(source(mul, side)) == x:
            return x
    return None


def _hswish(graph: Graph, root: Node, x: Port | None) -> bool:
    return x is not None and replace_root(graph, root, "HSwish", [x]) is not None


def _hswish_relu_div(graph: Graph, root: Node) -> bool:
    return _hswish(graph, root, _times_relu6(_by_const(root, "Divide", 6.0)))


def _hswish_relu_mul(graph: Graph, root: Node) -> bool:
    return _hswish(graph, root,
                   _times_relu6(_by_const(root, "Multiply", 1 / 6, _SIXTH_TOLERANCE)))


def _hswish_hsigmoid(graph: Graph, root: Node) -> bool:
    for side in (0, 1) if root.soft_get("op") == "Multiply" else ():
        hsigmoid = fed_by(source(root, side), "HSigmoid")
        x = unary_input(hsigmoid, "HSigmoid")
        if x is not None and len(hsigmoid.out_port(0).get_destinations()) == 1 \
                and other_operand(root, hsigmoid.out_port(0)) == x:
            return _hswish(graph, root, x)
    return False


def _then_scaled(root: Node, six: np.ndarray) -> tuple[Node, np.ndarray]:
    """(the node the HSwish * factor replaces, the factor): root's sole consumer when it
    multiplies or divides by a single-element constant (ovc turns the Divide into a Multiply
    by 1 / c and merges it with the 6), else root and 6."""
    dests = root.out_port(0).get_destinations()
    nxt = dests[0].node if len(dests) == 1 else None
    op = None if nxt is None else nxt.soft_get("op")
    if op == "Multiply":
        found = split_scalar(nxt)
        if found and found[0] == root.out_port(0):
            return nxt, six * const_array(found[2]).reshape(()).astype(six.dtype)
    if op == "Divide" and source(nxt, 0) == root.out_port(0):
        value = const_array(source(nxt, 1))
        if value is not None and value.size == 1 and value.dtype == six.dtype:
            return nxt, six * (six.dtype.type(1) / value.reshape(()))
    return root, six


def _hswish_clamp(graph: Graph, root: Node) -> bool:
    """x * Clamp(x + 3, 0, 6): HSwish(x) * 6 (times what follows, see _then_scaled)."""
    for side in (0, 1) if root.soft_get("op") == "Multiply" else ():
        x = _clamp6(source(root, side))
        if x is None or source(root, 1 - side) != x or x.data.get_data_type() is None:
            continue
        target, factor = _then_scaled(root, np.array(6, x.data.get_data_type()))
        if factor == 1:
            return _hswish(graph, target, x)
        name = root.soft_get("name", root.id)
        hswish = new_op(graph, "HSwish", [x], name + "/hswish")
        scale = new_const(graph, factor, name + "/scale")
        if replace_root(graph, target, "Multiply", [hswish, scale]) is not None:
            return True
        remove_unused(graph, hswish.node)
        return False
    return False


# in the order ovc registers them
HSWISH_FUSIONS = (_hswish_relu_div, _hswish_relu_mul, _hswish_hsigmoid, _hswish_clamp)
HSIGMOID_FUSIONS = (_hsigmoid_relu_div, _hsigmoid_relu_mul, _hsigmoid_max_div,
                    _hsigmoid_clamp_mul, _hsigmoid_clamp_div)
