"""Activations written out in elementwise ops become one op, with the forms
and conditions of the fusions OpenVINO's offline transformations (MOC, run by ovc) apply, so
the IR holds what ovc's holds:

- SoftPlus(x): ln(exp(x) + 1), the 1 a float constant of one element, exactly 1.
- Mish(x): x * tanh(SoftPlus(x)), the SoftPlus and the Tanh used only there.
- Swish(x): x * sigmoid(x) and x / (1 + exp(-x)); Swish(x, beta): x * sigmoid(x * beta)
  and x / (1 + exp(-(x * beta))), beta one element, or a constant of one distinct value
  (then a scalar).
- HSwish and HSigmoid: hswish_fusion.py; MVN: mvn_fusion.py.
- Softmax(x, axis): exp(x) / ReduceSum(exp(x), axis) and the same of x - ReduceMax(x, axis)
  (other axes: nothing fused), each axes a constant of one element, x of static rank. ovc
  fuses whatever the reductions' keepdims; here a ReduceSum not keeping its axis (other than
  the first), whose broadcast is no softmax's, stays, and such a ReduceMax stays in x.
- PReLU(x, alpha): max(x, x * alpha), alpha a constant of one element below 1, the Multiply
  used only there (ovc's LeakyReluFusion; ovc drops a Multiply by 1 before it, so alpha 1
  stays written out).
- Clamp(x, lo, hi): min(max(x, lo), hi) and max(min(x, hi), lo), float bounds of one element,
  lo <= hi, the inner op used only there (ovc's ClampFusion).
- PReLU(x, slope) from relu(x) and the negative part written out: prelu_fusion.py.

As in ovc's GraphRewrite, the nodes are visited in topological order, each as the last node
of the patterns in ovc's order; a fused op's output has the replaced node's shape and type.
Like ovc's (which run on the converted model), they run after the back phase: the phase
graphs stay the legacy MO's."""

from __future__ import annotations

import numpy as np

from converter.back._fusion_ports import (
    const_array,
    fed_by,
    new_const,
    other_operand,
    replace_root,
    source,
    split_scalar,
    unary_input,
)
from converter.back.hswish_fusion import HSIGMOID_FUSIONS, HSWISH_FUSIONS
from converter.back.mvn_fusion import fuse_mvn
from converter.back.prelu_fusion import PRELU_FUSIONS
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.middle.subgraphs import bodies_of

__all__ = ["fuse_activations"]


def _softplus(graph: Graph, root: Node) -> bool:
    add = fed_by(unary_input(root, "Log"), "Add")
    found = split_scalar(add) if add is not None else None
    if found is None or found[1] != 1.0 or const_array(found[2]).dtype.kind != "f":
        return False
    x = unary_input(fed_by(found[0], "Exp"), "Exp")
    return x is not None and replace_root(graph, root, "SoftPlus", [x]) is not None


def _mish(graph: Graph, root: Node) -> bool:
    for side in (0, 1) if root.soft_get("op") == "Multiply" else ():
        tanh = fed_by(source(root, side), "Tanh")
        softplus = fed_by(unary_input(tanh, "Tanh"), "SoftPlus")
        x = unary_input(softplus, "SoftPlus")
        single = softplus is not None and all(
            len(n.out_port(0).get_destinations()) == 1 for n in (tanh, softplus))
        if single and x is not None and source(root, 1 - side) == x:
            return replace_root(graph, root, "Mish", [x]) is not None
    return False


def _beta(graph: Graph, port: Port, name: str) -> Port | None:
    """Swish's beta input from the factor port: a constant of one distinct float value as a
    scalar constant, another single-element value as it is."""
    value = const_array(port)
    if value is not None:
        flat = value.reshape(-1)
        if value.dtype.kind != "f" or not flat.size or np.any(flat != flat[0]):
            return None
        return new_const(graph, np.array(flat[0], value.dtype), name + "/beta")
    shape = port.data.get_shape()
    return port if shape is not None and int(np.prod(shape)) == 1 else None


def _swish(graph: Graph, root: Node, x: Port, beta: Port | None) -> bool:
    inputs = [x] if beta is None else [x, beta]
    if replace_root(graph, root, "Swish", inputs) is not None:
        return True
    if beta is not None and beta.node.soft_get("op") == "Const" and \
            not beta.get_destinations():
        graph.remove_nodes_from([beta.node.id, *(d.id for _, d in beta.node.iter_out_data())])
    return False


def _swish_sigmoid(graph: Graph, root: Node, with_beta: bool) -> bool:
    """x * sigmoid(x), or x * sigmoid(x * beta) (with_beta)."""
    for side in (0, 1) if root.soft_get("op") == "Multiply" else ():
        x, inner = source(root, 1 - side), unary_input(fed_by(source(root, side), "Sigmoid"),
                                                      "Sigmoid")
        if x is None or inner is None:
            continue
        if not with_beta:
            if inner == x:
                return _swish(graph, root, x, None)
            continue
        mul = fed_by(inner, "Multiply")
        factor = other_operand(mul, x) if mul is not None else None
        beta = _beta(graph, factor, root.soft_get("name", root.id)) if factor else None
        if beta is not None:
            return _swish(graph, root, x, beta)
    return False


def _swish_divide(graph: Graph, root: Node, with_beta: bool) -> bool:
    """x / (1 + exp(-x)), or x / (1 + exp(-(x * beta))) (with_beta)."""
    if root.soft_get("op") != "Divide":
        return False
    x, add = source(root, 0), fed_by(source(root, 1), "Add")
    found = split_scalar(add) if add is not None and x is not None else None
    if found is None or abs(found[1] - 1.0) > np.finfo(np.float32).eps:
        return False
    negated = unary_input(fed_by(unary_input(fed_by(found[0], "Exp"), "Exp"), "Negative"),
                          "Negative")
    if negated is None or not with_beta:
        return negated == x and _swish(graph, root, x, None)
    mul = fed_by(negated, "Multiply")
    factor = other_operand(mul, x) if mul is not None else None
    beta = _beta(graph, factor, root.soft_get("name", root.id)) if factor else None
    return beta is not None and _swish(graph, root, x, beta)


def _axis(port: Port | None, rank: int) -> int | None:
    """The one axis a constant axes input names, made non-negative."""
    value = const_array(port)
    if value is None or value.size != 1 or value.dtype.kind not in "iu":
        return None
    axis = int(value.reshape(-1)[0])
    return axis + rank if -rank <= axis < 0 else axis if axis < rank else None


def _reduction(port: Port | None, op: str, of: Port) -> Node | None:
    """port's node, when it is op(of, constant axes)."""
    node = fed_by(port, op)
    if node is None or source(node, 0) != of or const_array(source(node, 1)) is None:
        return None
    return node


def _kept(node: Node, axis: int) -> bool:
    """Whether node's output broadcasts against its input as the reduced dimension kept
    would (keepdims, or the first axis)."""
    return bool(node.soft_get("keep_dims", False)) or axis == 0


def _softmax(graph: Graph, root: Node) -> bool:
    """exp(s) / ReduceSum(exp(s), axis): Softmax(s), or Softmax(x) when s is
    x - ReduceMax(x, axis) (the same axis, else nothing)."""
    exp = source(root, 0) if root.soft_get("op") == "Divide" else None
    s = unary_input(fed_by(exp, "Exp"), "Exp")
    total = None if s is None else _reduction(source(root, 1), "ReduceSum", exp)
    shape = None if total is None else s.data.get_shape()
    axis = None if shape is None else _axis(source(total, 1), len(shape))
    if axis is None or not _kept(total, axis):
        return False
    sub = fed_by(s, "Subtract")
    x = source(sub, 0) if sub is not None else None
    peak = _reduction(source(sub, 1), "ReduceMax", x) if x is not None else None
    if peak is not None:
        if _axis(source(peak, 1), len(shape)) != axis:
            return False
        s = x if _kept(peak, axis) else s
    return replace_root(graph, root, "Softmax", [s], {"axis": axis}) is not None


def _leaky_relu(graph: Graph, root: Node) -> bool:
    for side in (0, 1) if root.soft_get("op") == "Maximum" else ():
        x, mul = source(root, 1 - side), fed_by(source(root, side), "Multiply")
        found = split_scalar(mul) if mul is not None and x is not None else None
        if found is None or found[0] != x or found[1] >= 1.0 \
                or len(mul.out_port(0).get_destinations()) != 1:
            continue
        return replace_root(graph, root, "PReLU", [x, found[2]]) is not None
    return False


def _clamp(graph: Graph, root: Node) -> bool:
    """min(max(x, lo), hi) or max(min(x, hi), lo): Clamp(x, lo, hi), the bounds float constants
    of one element with lo <= hi, the inner op used only there (ovc's ClampFusion)."""
    inner_op = {"Minimum": "Maximum", "Maximum": "Minimum"}.get(root.soft_get("op"))
    outer = split_scalar(root) if inner_op else None
    inner = fed_by(outer[0], inner_op) if outer else None
    found = split_scalar(inner) if inner is not None else None
    if (found is None or len(inner.out_port(0).get_destinations()) != 1
            or found[2].data.get_data_type() is None
            or np.dtype(found[2].data.get_data_type()).kind != "f"):
        return False
    lo, hi = (found[1], outer[1]) if inner_op == "Maximum" else (outer[1], found[1])
    if lo > hi:
        return False
    return replace_root(graph, root, "Clamp", [found[0]], {"min": lo, "max": hi}) is not None


def _bind(fusion, **kwargs):
    return lambda graph, root: fusion(graph, root, **kwargs)


# ovc's CommonFusions order: SoftPlus, Mish, Swish, HSwish, HSigmoid, Softmax, MVN, LeakyRelu
_FUSIONS = (_softplus, _mish, _bind(_swish_sigmoid, with_beta=False),
            _bind(_swish_sigmoid, with_beta=True), _bind(_swish_divide, with_beta=True),
            _bind(_swish_divide, with_beta=False), *HSWISH_FUSIONS, *HSIGMOID_FUSIONS,
            _softmax, fuse_mvn, _leaky_relu, _clamp, *PRELU_FUSIONS)
_ROOTS = frozenset({"Log", "Multiply", "Divide", "Maximum", "Minimum", "Add", "Subtract"})


def fuse_activations(graph: Graph) -> int:
    """Fuse every written-out activation, in graph and its sub-graph bodies; the number fused.
    Run on the back-stage graph, before fuse_linear_ops (ovc's fusions precede its linear ones,
    which merge HSwish * 6 with a following Multiply)."""
    fused = 0
    for node in graph.topological_order():
        if node.id in graph and node.soft_get("kind") == "op" and node.soft_get("op") in _ROOTS:
            fused += any(fusion(graph, node) for fusion in _FUSIONS)
    return fused + sum(fuse_activations(body) for body in bodies_of(graph))
