"""Keras' GRU loop (reset_after=True, Keras' default) as one GRUSequence-5 with
linear_before_reset, as lstm_fusion does for the LSTM.

The While body Keras writes for a GRU layer reads step t of an input list and, with kernel W,
recurrent kernel R and the input and recurrence biases bx, bh:

    xz, xr, xh = split(x[t] @ W + bx, 3);  hz, hr, hh = parts of (h @ R + bh), in z, r, h order
    z = sigmoid(xz + hz);  r = sigmoid(xr + hr);  c = tanh(xh + r * hh)
    h_new = z * h + (1 - z) * c

writing h_new to an output list (the parts of h @ R + bh are a Split or StridedSlices). Other
bodies (reset_after=False, other activations) stay Loops.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from converter.front.tf.body_nodes import ADDS, BodyNodes, Tensor
from converter.front.tf.fused_sequence import loop_outputs, sequence_inputs, weight_value
from converter.front.tf.translator import TfNode
from converter.graph.port import Port

__all__ = ["GruLoop", "fuse_gru", "match_gru"]


@dataclass
class GruLoop:
    """The loop variables of a Keras GRU body and its weights, gate blocks in z, r, h order."""

    h: int
    sequence: int
    output: int
    stacked: bool
    weights: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # W, R, bx, bh


def _sum(body: BodyNodes, tensor: str | Tensor) -> list[str] | None:
    node = body.node(tensor, *ADDS, "BiasAdd")
    return body.data(node) if node is not None and len(body.data(node)) == 2 else None


def _cell(body: BodyNodes, h_new: Tensor, h: int) -> tuple[str, str, tuple[str, str]] | None:
    """(z's, r's pre-activation, (xh, hh)) of h_new = z * h + (1 - z) * tanh(xh + r * hh)."""
    terms = _sum(body, h_new)
    muls = [body.node(t, "Mul") for t in terms or ()]
    if len(muls) != 2 or None in muls:
        return None
    z = candidate = None
    for mul in muls:
        a, b = body.data(mul)
        if body.param(b) == h:
            a, b = b, a
        if body.param(a) == h:
            z = body.node(b, "Sigmoid")
        else:
            for u, v in ((a, b), (b, a)):
                sub, tanh = body.node(u, "Sub"), body.node(v, "Tanh")
                if sub is not None and tanh is not None:
                    candidate = (sub, tanh)
    if z is None or candidate is None:
        return None
    one, gate = body.data(candidate[0])
    if body.const(one) is None or not np.all(body.const(one) == 1) or \
            body.origin(gate)[0] != z.name:
        return None
    inner = _sum(body, body.data(candidate[1])[0])
    for u, v in (inner, inner[::-1]) if inner else ():
        mul = body.node(v, "Mul")
        terms = body.data(mul) if mul is not None else []
        resets = [body.node(t, "Sigmoid") for t in terms if body.node(t, "Sigmoid") is not None]
        rest = [t for t in terms if body.node(t, "Sigmoid") is None]
        if len(resets) == 1 and len(rest) == 1:
            return body.data(z)[0], body.data(resets[0])[0], (u, rest[0])
    return None


def _parts(body: BodyNodes, tensors: list[str]) -> str | None:
    """The tensor that tensors (in z, r, h order) split into thirds along its last axis."""
    sources = [body.origin(t) for t in tensors]
    split = body.nodes.get(sources[0][0])
    if split is not None and split.op == "Split" and [p for _, p in sources] == [0, 1, 2] and \
            {s for s, _ in sources} == {split.name} and split.attr["num_split"].i == 3:
        axis = body.const(body.data(split)[0])
        return body.data(split)[1] if axis is not None and int(axis) in (1, -1) else None
    slices = [body.node(t, "StridedSlice") for t in tensors]
    if None in slices or len({body.origin(body.data(s)[0]) for s in slices}) != 1:
        return None
    begins = [body.const(body.data(s)[1]) for s in slices]
    if any(b is None for b in begins) or not begins[0][-1] < begins[1][-1] < begins[2][-1]:
        return None
    return body.data(slices[0])[0]


def _projection(body: BodyNodes, tensor: str) -> tuple[str, str, str] | None:
    """(matrix input, weight, bias) of tensor = input @ weight + bias."""
    terms = _sum(body, tensor)
    if terms is None:
        return None
    for mat, bias in (terms, terms[::-1]):
        mul = body.node(mat, "MatMul")
        if mul is not None and not (mul.attr["transpose_a"].b or mul.attr["transpose_b"].b):
            return body.data(mul)[0], body.data(mul)[1], bias
    return None


def _gates(body: BodyNodes, pre: tuple[str, str, tuple[str, str]], h: int) -> dict | None:
    """The input and recurrence projections under the three pre-activations."""
    sums = [_sum(body, t) for t in pre[:2]]
    if None in sums:
        return None
    for z_terms, r_terms in product((sums[0], sums[0][::-1]), (sums[1], sums[1][::-1])):
        xs = _parts(body, [z_terms[0], r_terms[0], pre[2][0]])
        hs = _parts(body, [z_terms[1], r_terms[1], pre[2][1]])
        found = xs and hs and (_projection(body, xs), _projection(body, hs))
        if found and None not in found and body.param(found[1][0]) == h:
            step = body.node(found[0][0], "TensorListGetItem")
            return None if step is None else {"x": found[0], "h": found[1], "step": step}
    return None


def match_gru(n: TfNode, body: BodyNodes, results: list[str], lists: dict,
              counters: set[int]) -> GruLoop | None:
    """The Keras GRU a While's body computes, or None (arguments as match_lstm's)."""
    origins = [body.origin(r) for r in results]
    for out, (item, stacked) in lists.items():
        h_new = body.origin(item)
        if h_new not in origins:
            continue
        h = origins.index(h_new)
        pre = _cell(body, h_new, h)
        gates = pre and _gates(body, pre, h)
        if not gates or body.param(body.data(gates["step"])[1]) not in counters:
            continue
        sequence = body.param(body.data(gates["step"])[0])
        weights = tuple(weight_value(n, body, t) for t in (
            gates["x"][1], gates["h"][1], gates["x"][2], gates["h"][2]))
        unchanged = {j for j, o in enumerate(origins) if o == (body.params[j], 0)}
        others = set(range(len(body.params))) - {h, out}
        if sequence in unchanged and others <= unchanged | counters and not any(
                w is None for w in weights):
            return GruLoop(h, sequence, out, stacked, weights)
    return None


def fuse_gru(n: TfNode, gru: GruLoop, counters: set[int]) -> list[Port | None]:
    """The While's outputs computed by one GRUSequence."""
    kernel, recurrent, bias_x, bias_h = (np.asarray(w, np.float32) for w in gru.weights)
    size = recurrent.shape[0]
    bias = np.concatenate([bias_x[:2 * size] + bias_h[:2 * size], bias_x[2 * size:],
                           bias_h[2 * size:]])
    inputs, steps = sequence_inputs(n, gru.sequence, (gru.h,))
    node = n.op_node("GRUSequence", [*inputs, kernel.T[None], recurrent.T[None], bias[None]],
                     hidden_size=int(size), direction="forward", linear_before_reset=True,
                     out_ports_count=2)
    return loop_outputs(n, node, (gru.h,), steps, counters, gru.output, gru.stacked)
