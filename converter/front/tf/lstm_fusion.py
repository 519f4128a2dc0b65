"""Keras' LSTM loop as one LSTMSequence-5, which runtimes run far faster than a Loop.

The While body Keras writes for an LSTM layer (a While of the function library, or TF1 frames
made one) reads step t of an input list and, with kernel W, recurrent kernel R and bias b:

    f, i, g, o = parts of split(x[t] @ W + h @ R + b, 4)  (in some order; Keras: i, f, g, o)
    c_new = sigmoid(f) * c + sigmoid(i) * tanh(g);  h_new = sigmoid(o) * tanh(c_new)

writing h_new to an output list. Matched on the body's NodeDefs (the loop variables: h, c, the
input list, the output list, W, R, b handed back unchanged, counters from 0 and other variables
handed back unchanged), it becomes LSTMSequence(X, H, C, lengths, W', R', B') with the gate
blocks in OpenVINO's f, i, c, o order, run over the whole input list. Other bodies stay Loops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from converter.front.tf.body_nodes import ADDS, BodyNodes, Tensor
from converter.front.tf.fused_sequence import loop_outputs, sequence_inputs
from converter.front.tf.translator import TfNode
from converter.graph.port import Port

__all__ = ["LstmLoop", "fuse_lstm", "match_lstm"]


@dataclass
class LstmLoop:
    """The loop variables of a Keras LSTM body, and the split parts of its gates."""

    h: int
    c: int
    sequence: int
    output: int
    stacked: bool
    gates: tuple[int, int, int, int]  # the split outputs of f, i, g, o
    weights: tuple[int, int, int]  # kernel, recurrent kernel, bias


def _gates(body: BodyNodes, h_new: Tensor, c: int) -> tuple[object, tuple] | None:
    """(split node, its ports of f, i, g, o) of the cell whose h_new and c are given."""
    out = body.pair(body.node(h_new, "Mul"), "Sigmoid", "Tanh")
    add = body.node(out[1], *ADDS) if out else None
    if add is None or len(body.data(add)) != 2:
        return None
    forget = update = None
    for term in body.data(add):
        mul = body.node(term, "Mul")
        if mul is None:
            return None
        kept = [t for t in body.data(mul) if body.param(t) != c]
        if len(kept) == 1:
            forget = body.unary(kept[0], "Sigmoid")
        else:
            update = body.pair(mul, "Sigmoid", "Tanh")
    if forget is None or update is None:
        return None
    parts = (forget, update[0], update[1], out[0])
    split = body.node(parts[0], "Split")
    if split is None or any(p[0] != split.name for p in parts):
        return None
    return split, tuple(p[1] for p in parts)


def _projections(body: BodyNodes, split, h: int) -> tuple[int, int, int, int, str] | None:
    """(kernel, recurrent kernel, bias variables, input list variable, the step index) of
    split(x[t] @ W + h @ R + b)."""
    axis = body.const(body.data(split)[0])
    biased = body.node(body.data(split)[1], "BiasAdd", *ADDS)
    if axis is None or int(axis.ravel()[0]) not in (1, -1) or biased is None or len(
            body.data(biased)) != 2:
        return None
    z, b = body.data(biased)
    if body.param(z) is not None:
        z, b = b, z
    total = body.node(z, *ADDS)
    mats = [body.node(t, "MatMul") for t in body.data(total)] if total is not None else []
    if len(mats) != 2 or None in mats or any(
            m.attr["transpose_a"].b or m.attr["transpose_b"].b for m in mats):
        return None
    if body.param(body.data(mats[0])[0]) == h:
        mats.reverse()
    step = body.node(body.data(mats[0])[0], "TensorListGetItem")
    if step is None or body.param(body.data(mats[1])[0]) != h:
        return None
    found = (body.param(body.data(mats[0])[1]), body.param(body.data(mats[1])[1]),
             body.param(b), body.param(body.data(step)[0]))
    return None if None in found else (*found, body.data(step)[1])


def match_lstm(n: TfNode, body: BodyNodes, results: list[str], lists: dict,
               counters: set[int]) -> LstmLoop | None:
    """The Keras LSTM a While's body computes, or None. `lists`: the output lists the body
    writes (variable -> (item, stacked)); `counters`: the variables that count iterations."""
    params = body.params
    origins = [body.origin(r) for r in results]
    for out, (item, stacked) in lists.items():
        h_new = body.origin(item)
        if h_new not in origins:
            continue
        h = origins.index(h_new)
        out_gate = body.pair(body.node(h_new, "Mul"), "Sigmoid", "Tanh")
        c = origins.index(out_gate[1]) if out_gate and out_gate[1] in origins else None
        cell = c is not None and _gates(body, h_new, c)
        found = cell and _projections(body, cell[0], h)
        if not found or body.param(found[4]) not in counters:
            continue
        *weights, sequence, _ = found
        unchanged = {j for j, o in enumerate(origins) if o == (params[j], 0)}
        others = set(range(len(params))) - {h, c, out}
        if sequence in unchanged and others <= unchanged | counters and all(
                j in unchanged and n.const_value(j) is not None for j in weights):
            return LstmLoop(h, c, sequence, out, stacked, cell[1], tuple(weights))
    return None


def _gate_blocks(w: np.ndarray, gates: tuple[int, ...]) -> np.ndarray:
    """[1, 4H, ...] of a [..., 4H] weight: its gate blocks in f, i, c, o order, rows first."""
    blocks = np.split(np.moveaxis(np.asarray(w, np.float32), -1, 0), 4)
    return np.concatenate([blocks[g] for g in gates])[None]


def fuse_lstm(n: TfNode, lstm: LstmLoop, counters: set[int]) -> list[Port | None]:
    """The While's outputs computed by one LSTMSequence."""
    kernel, recurrent, bias = (n.const_value(k) for k in lstm.weights)
    inputs, steps = sequence_inputs(n, lstm.sequence, (lstm.h, lstm.c))
    node = n.op_node("LSTMSequence", [
        *inputs, _gate_blocks(kernel, lstm.gates), _gate_blocks(recurrent, lstm.gates),
        _gate_blocks(bias, lstm.gates)],
        hidden_size=int(recurrent.shape[0]), direction="forward", out_ports_count=3)
    return loop_outputs(n, node, (lstm.h, lstm.c), steps, counters, lstm.output, lstm.stacked)
