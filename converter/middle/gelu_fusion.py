"""GeluFusion: GELU written out in elementwise ops becomes one opset7 Gelu, as OpenVINO's own
GeluFusion makes it (so the IR holds what ovc's holds, and the runtime runs one op instead of
five): x * 0.5 * (1 + erf(x / sqrt 2)) in any order of its factors (torch's, Keras' and TF's
exports, Mul by 0.7071 or Div by 1.4142, 0.5 + 0.5 * erf) with approximation_mode ERF, and
x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) with TANH.

Rather than one pattern per order, the chain around an Erf or Tanh is read as a polynomial:
each value a sum of coefficient * x^i * s^j, s the Erf/Tanh output, over Add, Subtract,
Multiply, Divide by a constant, Power by 2 or 3 and Negative with scalar constants. The
first node below the Erf/Tanh whose value is 0.5 x + 0.5 x s (and whose shape and type are
x's) is replaced."""

from __future__ import annotations

import math

import numpy as np

from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.middle.replacement import MiddleReplacementPattern
from converter.ops.op import Op

__all__ = ["GeluFusion"]

Poly = dict[tuple[int, int], float]  # (power of x, power of s) -> coefficient
_ARITH = frozenset({"Add", "Subtract", "Multiply", "Divide", "Power", "Negative"})
_DEPTH = 8  # ops between x and the value, at most
_HALF = {(1, 0): 0.5, (1, 1): 0.5}  # x Phi(x) = x / 2 + x s / 2


def _close(a: float, b: float, rel: float = 1e-5) -> bool:
    return abs(a - b) <= rel * abs(b)


def _scalar(port: Port) -> float | None:
    """The value of a constant output port of one element (which broadcasts to nothing
    larger than the rest of the chain)."""
    value = port.data.get_value()
    if value is None or np.size(value) != 1 or np.asarray(value).dtype.kind not in "fiu":
        return None
    return float(np.asarray(value).reshape(-1)[0])


def _sources(node: Node) -> list[Port] | None:
    ports = [node.in_port(i) for i in sorted(node.in_ports()) if not node.in_port(i).disconnected()]
    sources = [p.get_source() for p in ports]
    return None if any(s is None for s in sources) else sources


def _times(a: Poly, b: Poly) -> Poly | None:
    out: Poly = {}
    for (i, j), u in a.items():
        for (k, m), w in b.items():
            if j + m > 1 or i + k > 3:
                return None
            out[(i + k, j + m)] = out.get((i + k, j + m), 0.0) + u * w
    return out


def _plus(a: Poly, b: Poly, sign: float = 1.0) -> Poly:
    out = dict(a)
    for key, w in b.items():
        out[key] = out.get(key, 0.0) + sign * w
    return out


def _combine(op: str, args: list[Poly]) -> Poly | None:
    if op == "Negative" and len(args) == 1:
        return {k: -w for k, w in args[0].items()}
    if len(args) != 2:
        return None
    a, b = args
    if op in ("Add", "Subtract"):
        return _plus(a, b, 1.0 if op == "Add" else -1.0)
    if op == "Multiply":
        return _times(a, b)
    constant = b.get((0, 0)) if set(b) == {(0, 0)} else None
    if op == "Divide" and constant:
        return {k: w / constant for k, w in a.items()}
    if op == "Power" and constant == 2.0:
        return _times(a, a)
    if op == "Power" and constant == 3.0:
        square = _times(a, a)
        return None if square is None else _times(square, a)
    return None


def _poly(port: Port, x: Port, s: Port | None, depth: int = _DEPTH) -> Poly | None:
    """port's value as a polynomial in x and s, or None."""
    if port == x:
        return {(1, 0): 1.0}
    if port == s:
        return {(0, 1): 1.0}
    value = _scalar(port)
    if value is not None:
        return {(0, 0): value}
    sources = _sources(port.node) if port.node.soft_get("op") in _ARITH and depth else None
    if sources is None:
        return None
    args = [_poly(src, x, s, depth - 1) for src in sources]
    if any(a is None for a in args):
        return None
    return _combine(port.node.soft_get("op"), args)


def _candidates(port: Port) -> list[Port]:
    """The non-constant values the arithmetic ending at port reads, nearest first."""
    found, frontier = [], [port]
    for _ in range(_DEPTH):
        sources = [src for p in frontier if p.node.soft_get("op") in _ARITH
                   for src in _sources(p.node) or []]
        frontier = [src for src in sources if src.data.get_value() is None and src not in found]
        found += frontier
    return found


def _matches(poly: Poly, want: Poly, rel: float) -> bool:
    kept = {k: w for k, w in poly.items() if w != 0.0}
    return set(kept) == set(want) and all(_close(kept[k], want[k], rel) for k in want)


def _argument(special: Node) -> tuple[Port, str] | None:
    """x and the approximation mode, when special's input is x / sqrt 2 (Erf) or
    sqrt(2/pi) (x + 0.044715 x^3) (Tanh) for some x."""
    src = special.in_port(0).get_source()
    if special.soft_get("op") == "Erf":
        mode, want, rel = "ERF", {(1, 0): math.sqrt(0.5)}, 1e-5
    else:
        k = math.sqrt(2 / math.pi)
        mode, want, rel = "TANH", {(1, 0): k, (3, 0): 0.044715 * k}, 1e-4
    for x in _candidates(src) if src is not None else []:
        inner = _poly(src, x, None)
        if inner is not None and _matches(inner, want, rel):
            return x, mode
    return None


def _root(special: Node, x: Port) -> Node | None:
    """The first node on special's single-consumer chain whose value is x Phi(x)."""
    node = special
    for _ in range(_DEPTH):
        dests = node.out_port(0).get_destinations()
        if len(dests) != 1 or dests[0].node.soft_get("op") not in _ARITH:
            return None
        node = dests[0].node
        poly = _poly(node.out_port(0), x, special.out_port(0))
        if poly is not None and _matches(poly, _HALF, 1e-6):
            return node
    return None


def _same_tensor(a: Port, b: Port) -> bool:
    """a and b have one static-rank shape and one floating element type."""
    shapes = [a.data.get_shape(), b.data.get_shape()]
    types = [a.data.get_data_type(), b.data.get_data_type()]
    if any(v is None for v in shapes + types) or tuple(shapes[0]) != tuple(shapes[1]):
        return False
    return np.dtype(types[0]) == np.dtype(types[1]) and np.dtype(types[0]).kind == "f"


def fuse_gelu(graph: Graph) -> int:
    """Replace every written-out GELU; the number replaced (dead nodes are left to clean_up)."""
    fused = 0
    for special in graph.get_op_nodes(op="Erf") + graph.get_op_nodes(op="Tanh"):
        found = _argument(special)
        root = found and _root(special, found[0])
        if not root or not _same_tensor(found[0], root.out_port(0)):
            continue
        x, mode = found
        gelu = Op.builtin_ops["Gelu"](graph).create_node(
            [x], attrs={"name": root.soft_get("name", root.id), "approximation_mode": mode})
        root.out_port(0).get_connection().set_source(gelu.out_port(0))
        gelu.infer(gelu)
        fused += 1
    return fused


class GeluFusion(MiddleReplacementPattern):
    """Written-out GELU (erf or tanh form) -> Gelu-7."""

    enabled = True
    force_clean_up = True

    def find_and_replace_pattern(self, graph: Graph) -> None:
        fuse_gelu(graph)
