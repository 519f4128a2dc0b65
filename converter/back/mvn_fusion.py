"""A mean-variance normalization written out in elementwise ops becomes one MVN-6, with the
forms and conditions of OpenVINO's MVNFusionWithoutConstants (so the IR holds what ovc's
holds): (x - mean) / d or (x - mean) * d ** -1 (not (x - mean) * (1 / d), which ovc 2026.4
leaves), where mean is
ReduceMean(x, axes), d is sqrt(var + eps) (eps_mode inside_sqrt) or sqrt(var) + eps
(outside_sqrt), a square root also written as ** 0.5, and var is ReduceMean(c ** 2, axes) or
ReduceMean(c * c, axes), c that x - mean or another x - ReduceMean(x, axes), possibly through a
Convert. Each axes is a constant, all the same; eps a constant of one element. ovc does not
look at the means' keepdims; here each keeps its axes (else its broadcast is no MVN's)."""

from __future__ import annotations

import numpy as np

from converter.back._fusion_ports import (
    const_array,
    fed_by,
    other_operand,
    replace_root,
    scalar,
    source,
    split_scalar,
    unary_input,
)
from converter.graph.graph import Graph, Node
from converter.graph.port import Port

__all__ = ["fuse_mvn"]


def _mean(port: Port | None, of: Port | None = None) -> tuple[Port, np.ndarray, Port] | None:
    """(x, the axes, the axes port) when port is ReduceMean(x, constant axes) keeping its axes
    (x being `of` when given)."""
    node = fed_by(port, "ReduceMean")
    if node is None or not node.soft_get("keep_dims", False):
        return None
    x, axes_port = source(node, 0), source(node, 1)
    axes = const_array(axes_port)
    if x is None or axes is None or axes.dtype.kind not in "iu" or of not in (None, x):
        return None
    return x, axes.reshape(-1), axes_port


def _centered(port: Port | None) -> tuple[Port, np.ndarray, Port] | None:
    """_mean's triple when port is x - ReduceMean(x, axes)."""
    sub = fed_by(port, "Subtract")
    x = source(sub, 0) if sub is not None else None
    return _mean(source(sub, 1), x) if x is not None else None


def _squared(port: Port | None) -> Port | None:
    """c when port is c ** 2 or c * c, c possibly through a Convert."""
    node = fed_by(port, "Power", "Multiply")
    a, b = (source(node, 0), source(node, 1)) if node is not None else (None, None)
    if a is None or b is None:
        return None
    if node.soft_get("op") == "Power":
        base = a if scalar(b) == 2.0 else None
    else:
        base = a if a == b else None
    converted = unary_input(fed_by(base, "Convert"), "Convert")
    return converted or base


def _sqrt_of(port: Port | None) -> Port | None:
    """v when port is sqrt(v) or v ** 0.5."""
    node = fed_by(port, "Sqrt", "Power")
    if node is None:
        return None
    if node.soft_get("op") == "Sqrt":
        return unary_input(node, "Sqrt")
    return source(node, 0) if scalar(source(node, 1)) == 0.5 else None


def _plus_eps(port: Port | None) -> tuple[Port, float] | None:
    add = fed_by(port, "Add")
    found = split_scalar(add) if add is not None else None
    return None if found is None else (found[0], found[1])


def _denominator(port: Port | None) -> tuple[Port, float, str] | None:
    """(the variance, eps, eps_mode) when port is sqrt(var) + eps or sqrt(var + eps)."""
    outside = _plus_eps(port)
    var = _sqrt_of(outside[0]) if outside is not None else None
    if var is not None:
        return var, outside[1], "outside_sqrt"
    inside = _plus_eps(_sqrt_of(port))
    return None if inside is None else (inside[0], inside[1], "inside_sqrt")


def _dividend_and_divisor(root: Node) -> list[tuple[Port, Port]]:
    """The (numerator, denominator) readings of root: a / d and a * d ** -1."""
    op, found = root.soft_get("op"), []
    if op == "Divide" and source(root, 0) is not None and source(root, 1) is not None:
        found.append((source(root, 0), source(root, 1)))
    for side in (0, 1) if op == "Multiply" else ():
        inverse, a = source(root, side), source(root, 1 - side)
        node = fed_by(inverse, "Power")
        if node is not None and a is not None and other_operand(root, a) == inverse \
                and scalar(source(node, 1)) == -1.0:
            found.append((a, source(node, 0)))
    return found


def _variance_of(var: Port, centered: Port, x: Port, axes: np.ndarray) -> bool:
    """Whether var is ReduceMean(c ** 2, axes), c centered or x - ReduceMean(x, axes)."""
    mean = _mean(var)
    c = _squared(mean[0]) if mean is not None else None
    if c is None or not np.array_equal(mean[1], axes):
        return False
    other = _centered(c) if c != centered else None
    return c == centered or (other is not None and other[0] == x
                             and np.array_equal(other[1], axes))


def fuse_mvn(graph: Graph, root: Node) -> bool:
    for numerator, denominator in _dividend_and_divisor(root):
        centered, found = _centered(numerator), _denominator(denominator)
        if centered is None or found is None:
            continue
        x, axes, axes_port = centered
        var, eps, mode = found
        if _variance_of(var, numerator, x, axes):
            attrs = {"normalize_variance": True, "eps": eps, "eps_mode": mode}
            return replace_root(graph, root, "MVN", [x, axes_port], attrs) is not None
    return False
