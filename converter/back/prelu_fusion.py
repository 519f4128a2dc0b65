"""PReLU(x, slope) from relu(x) plus a constant times x's negative part written out, in the
forms of ovc's PReluFusion (so the IR holds what ovc's holds); c is any constant:

- relu(x) + (-relu(-x)) * c and relu(x) - relu(-x) * c: slope c;
- relu(x) + relu(-x) * c and relu(x) + relu(x * -1) * c: slope -c;
- relu(x) - relu(x * -1) * c: slope c;
- relu(x) + (x - abs(x)) * c * 0.5: slope c.

Add and Multiply match their operands in either order; the ops in between may have other
consumers (they stay for those), as in ovc."""

from __future__ import annotations

from converter.back._fusion_ports import (
    const_operand,
    fed_by,
    new_const,
    operands,
    remove_unused,
    replace_root,
    scalar,
    source,
    unary_input,
)
from converter.graph.graph import Graph, Node
from converter.graph.port import Port

__all__ = ["PRELU_FUSIONS"]


def _times_const(port: Port | None) -> tuple[Port, Port] | None:
    """(the other operand, the constant) of a Multiply by a constant feeding port."""
    return const_operand(fed_by(port, "Multiply"))


def _negative(port: Port | None) -> Port | None:
    """x when port is -x."""
    return unary_input(fed_by(port, "Negative"), "Negative")


def _relu_of_negated(port: Port | None) -> Port | None:
    """x when port is relu(-x) or relu(x * -1)."""
    inner = unary_input(fed_by(port, "ReLU"), "ReLU")
    found = _times_const(inner)
    return _negative(inner) or (found[0] if found and scalar(found[1]) == -1.0 else None)


def _slope(x: Port, other: Port, adds: bool) -> tuple[Port, bool] | None:
    """(c, whether the slope is -c) when other is the negative part's term of x, c * ..."""
    found = _times_const(other)
    if found is None:
        return None
    term, c = found
    if _relu_of_negated(term) == x:
        return c, adds
    negated = unary_input(fed_by(_negative(term), "ReLU"), "ReLU")  # -relu(-x)
    return (c, False) if adds and _negative(negated) == x else None


def _abs_form(x: Port, other: Port) -> Port | None:
    """c when other is (x - abs(x)) * c * 0.5."""
    half = _times_const(other)
    if half is None or scalar(half[1]) != 0.5:
        return None
    found = _times_const(half[0])
    sub = fed_by(found[0], "Subtract") if found else None
    if sub is None or source(sub, 0) != x:
        return None
    return found[1] if unary_input(fed_by(source(sub, 1), "Abs"), "Abs") == x else None


def _prelu(graph: Graph, root: Node) -> bool:
    pair = operands(root)
    if pair is None or root.soft_get("op") not in ("Add", "Subtract"):
        return False
    adds = root.soft_get("op") == "Add"
    for relu_x, other in (pair, pair[::-1]) if adds else (pair,):
        x = unary_input(fed_by(relu_x, "ReLU"), "ReLU")
        found = None if x is None else _slope(x, other, adds)
        if found is None and x is not None and adds:
            found = None if (c := _abs_form(x, other)) is None else (c, False)
        if found is None:
            continue
        c, negate = found
        slope = new_const(graph, -c.data.get_value(), f"{root.soft_get('name')}/slope") \
            if negate else c
        if replace_root(graph, root, "PReLU", [x, slope]) is not None:
            return True
        if negate:
            remove_unused(graph, slope.node)
    return False


PRELU_FUSIONS = (_prelu,)
