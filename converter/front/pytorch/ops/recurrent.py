"""aten::lstm and aten::gru (TorchScript's nn.LSTM/nn.GRU; torch.export decomposes them) as one
LSTMSequence or GRUSequence per layer, both directions in one. Gates are i, f, g, o in torch
and f, i, c, o in the opset (LSTM); r, z, n and z, r, h (GRU, whose n gate adds its recurrence
bias before the reset: linear_before_reset)."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.ops._common import shape_of
from converter.front.pytorch.translator import TorchNode, aten_op
from converter.graph.port import Port

_ORDER = {"aten::lstm": [1, 0, 2, 3], "aten::gru": [1, 0, 2]}
_SWAP = np.array([1, 0, 2], np.int64)  # [B, D, H] <-> [D, B, H], [T, B, I] <-> [B, T, I]


def _weights(n: TorchNode, params: list, count: int) -> list[np.ndarray]:
    values = []
    for port in params[:count]:
        if port.node.soft_get("op") != "Const":
            n.reject("the recurrent weights are computed at run time", "change the model")
        values.append(np.asarray(port.node.value))
    return values


def _gates(value: np.ndarray, order: list[int]) -> np.ndarray:
    blocks = np.split(value, len(order), axis=0)
    return np.concatenate([blocks[k] for k in order], axis=0)


def _layer_weights(kind: str, per_direction: list[list[np.ndarray]]) -> list[np.ndarray]:
    """W, R and B of one layer, stacked over its directions."""
    order, hidden = _ORDER[kind], per_direction[0][1].shape[1]
    w, r, b = [], [], []
    for w_ih, w_hh, *biases in per_direction:
        w.append(_gates(w_ih, order))
        r.append(_gates(w_hh, order))
        b_ih, b_hh = biases or (np.zeros(len(order) * hidden, w_ih.dtype),) * 2
        if kind == "aten::lstm":
            b.append(_gates(b_ih + b_hh, order))
        else:
            summed = _gates(b_ih + b_hh, order)[: 2 * hidden]
            b.append(np.concatenate([summed, b_ih[2 * hidden:], b_hh[2 * hidden:]]))
    return [np.stack(w), np.stack(r), np.stack(b)]


def _states(n: TorchNode, state: Port, layer: int, directions: int) -> Port:
    rows = n.op("Slice", [state, n.const([layer * directions], np.int64),
                          n.const([(layer + 1) * directions], np.int64),
                          n.const([1], np.int64), n.const([0], np.int64)])
    return n.op("Transpose", [rows, n.const(_SWAP)])


@aten_op("aten::lstm", "aten::gru")
def recurrent(n: TorchNode):
    if n.names[1] != "hx":
        n.reject("packed sequences are not supported", "pass the padded tensor instead")
    kind, layers = n.op_type, int(n.value("num_layers"))
    directions = 2 if n.value("bidirectional") else 1
    per = 4 if n.value("has_biases") else 2
    values = _weights(n, n.arg("params"), layers * directions * per)
    states = n.arg("hx") if kind == "aten::lstm" else [n.arg("hx")]
    x = n.tensor("input")
    if not n.value("batch_first"):
        x = n.op("Transpose", [x, n.const(_SWAP)])
    dims = shape_of(n, x)
    lengths = n.op("Broadcast", [
        n.op("Gather", [dims, n.const(1, np.int64), n.const(0, np.int64)]),
        n.op("Gather", [dims, n.const([0], np.int64), n.const(0, np.int64)])])
    finals: list[list[Port]] = [[] for _ in states]
    for layer in range(layers):
        chunk = values[layer * directions * per:(layer + 1) * directions * per]
        w, r, b = _layer_weights(kind, [chunk[d * per:(d + 1) * per]
                                        for d in range(directions)])
        initial = [_states(n, s, layer, directions) for s in states]
        attrs = {"hidden_size": int(r.shape[2]),
                 "direction": "bidirectional" if directions == 2 else "forward"}
        if kind == "aten::gru":
            attrs["linear_before_reset"] = True
        node = n.op_node("LSTMSequence" if kind == "aten::lstm" else "GRUSequence",
                         [x, *initial, lengths, w, r, b], **attrs)
        y = n.op("Transpose", [node.out_port(0), n.const([0, 2, 1, 3], np.int64)])
        x = n.op("Reshape", [y, n.const([0, 0, -1], np.int64)], special_zero=True)
        for k, final in enumerate(finals):
            final.append(n.op("Transpose", [node.out_port(k + 1), n.const(_SWAP)]))
    if not n.value("batch_first"):
        x = n.op("Transpose", [x, n.const(_SWAP)])
    return [x, *(n.op("Concat", final, axis=0) for final in finals)]


