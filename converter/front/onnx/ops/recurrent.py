"""ONNX translators for RNN, LSTM and GRU: opset RNNSequence, LSTMSequence, GRUSequence.

ONNX lays a sequence out as [seq, batch, ...] (layout 0) or [batch, seq, ...] (layout 1) and
its states as [directions, batch, hidden] (layout 0); the opset ops take X [batch, seq, input],
states [batch, directions, hidden] and give Y [batch, directions, seq, hidden]. ONNX gives the
input and recurrence biases apart ([directions, 2 * gates * hidden]); the opset ops take their
sum, except GRU's h gate under linear_before_reset. LSTM gates are i, o, f, c in ONNX and
f, i, c, o in the opset; GRU gates are z, r, h in both.
"""

from __future__ import annotations

import numpy as np

from converter.front.onnx.ops._lstm_peepholes import unrolled_lstm
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port
from converter.ops.recurrent._sequence import ACTIVATIONS

I64 = np.dtype(np.int64)
_LSTM_ORDER = (2, 0, 3, 1)  # the opset's f, i, c, o taken from ONNX's i, o, f, c


class _Recurrent:
    """One ONNX recurrent node's inputs in the opset layout."""

    def __init__(self, n: OnnxNode, gates: int) -> None:
        self.n, self.gates = n, gates
        self.layout = n.attr("layout", 0)
        self.direction = n.attr("direction", "forward")
        self.dirs = 2 if self.direction == "bidirectional" else 1
        self.hidden = n.attr("hidden_size") or self._hidden_from_r()
        x = n.input(0)
        self.x = x if self.layout else n.op("Transpose", [x, np.array([1, 0, 2], I64)])

    def _hidden_from_r(self) -> int:
        r = self.n.const_value(2)
        if r is None:
            self.n.reject("has no hidden_size and R is not a constant", "set hidden_size")
        return int(r.shape[-1])

    def _dim(self, axis: int) -> Port:
        shape = self.n.op("ShapeOf", [self.x], output_type=I64)
        return self.n.op("Gather", [shape, np.array([axis], I64), np.int64(0)])

    def rows(self, i: int, blocks: list[int]) -> Port:
        """Input i's blocks (of hidden_size rows along axis 1) in the given order."""
        h = self.hidden
        index = np.concatenate([np.arange(b * h, (b + 1) * h) for b in blocks]).astype(I64)
        return self.n.folded("Gather", [self.n.input(i), index, np.int64(1)])

    def weights(self, order: tuple[int, ...]) -> list[Port]:
        return [self.rows(1, list(order)), self.rows(2, list(order))]

    def bias(self, summed: tuple[int, ...], apart: tuple[int, ...] = ()) -> Port:
        """Input + recurrence biases of the summed gates, then both biases of the gates kept
        apart (GRU's h under linear_before_reset); zeros when B is omitted."""
        if not self.n.has_input(3):
            width = (len(summed) + 2 * len(apart)) * self.hidden
            zeros = np.zeros((self.dirs, width), np.float32)
            return self.n.folded("ConvertLike", [zeros, self.n.input(1)])
        recurrence = [g + self.gates for g in summed]
        parts = [self.n.folded("Add", [self.rows(3, list(summed)), self.rows(3, recurrence)])]
        if apart:
            parts.append(self.rows(3, [g for a in apart for g in (a, a + self.gates)]))
        return parts[0] if len(parts) == 1 else self.n.folded("Concat", parts, axis=1)

    def lengths(self) -> Port:
        """sequence_lens, or the sequence length for every batch item when omitted."""
        if self.n.has_input(4):
            return self.n.input(4)
        return self.n.op("Broadcast", [self.n.op("Squeeze", [self._dim(1), np.array([0], I64)]),
                                      self._dim(0)])

    def state(self, i: int) -> Port:
        """Initial state input i as [batch, directions, hidden] (zeros when omitted)."""
        if self.n.has_input(i):
            src = self.n.input(i)
            return src if self.layout else self.n.op("Transpose", [src, np.array([1, 0, 2], I64)])
        shape = self.n.op("Concat", [self._dim(0), np.array([self.dirs, self.hidden], I64)],
                          axis=0)
        zero = self.n.folded("ConvertLike", [np.float32(0), self.n.input(1)])
        return self.n.op("Broadcast", [zero, shape])

    def attrs(self, defaults: list[str]) -> dict:
        """The opset op's attributes; one set of activations serves both directions."""
        names = [a.lower() for a in self.n.attr("activations", [])] or defaults
        per_direction = names[: len(defaults)]
        if names[len(defaults):] not in ([], per_direction):
            self.n.reject(f"its directions use different activations {names}",
                          "use the same activations in both directions")
        unknown = sorted(set(per_direction) - set(ACTIVATIONS))
        if unknown:
            self.n.reject(f"activations {unknown} have no OpenVINO equivalent",
                          f"use {', '.join(sorted(ACTIVATIONS))}")
        return {"hidden_size": self.hidden, "direction": self.direction,
                "activations": per_direction, "clip": float(self.n.attr("clip", 0.0))}

    def outputs(self, node) -> list[Port]:
        """Y, Y_h (and Y_c) of the opset node in the ONNX layout."""
        y = node.out_port(0)
        perm = [0, 2, 1, 3] if self.layout else [2, 1, 0, 3]
        ports = [self.n.op("Transpose", [y, np.array(perm, I64)])]
        for k in range(1, len(node.out_ports())):
            state = node.out_port(k)
            ports.append(state if self.layout else
                         self.n.op("Transpose", [state, np.array([1, 0, 2], I64)]))
        return ports


@onnx_op("RNN")
def rnn(n: OnnxNode):
    r = _Recurrent(n, 1)
    w, rec = r.weights((0,))
    node = n.op_node("RNNSequence", [r.x, r.state(5), r.lengths(), w, rec, r.bias((0,))],
                     **r.attrs(["tanh"]))
    return r.outputs(node)


@onnx_op("GRU")
def gru(n: OnnxNode):
    r = _Recurrent(n, 3)
    w, rec = r.weights((0, 1, 2))
    linear = bool(n.attr("linear_before_reset", 0))
    bias = r.bias((0, 1), (2,)) if linear else r.bias((0, 1, 2))
    node = n.op_node("GRUSequence", [r.x, r.state(5), r.lengths(), w, rec, bias],
                     linear_before_reset=linear,
                     **r.attrs(["sigmoid", "tanh"]))
    return r.outputs(node)


@onnx_op("LSTM")
def lstm(n: OnnxNode):
    r = _Recurrent(n, 4)
    if n.attr("input_forget", 0):
        n.reject("couples the input and forget gates (input_forget=1), which OpenVINO's "
                 "LSTMSequence cannot", "export the LSTM without input_forget")
    peepholes = n.const_value(7) if n.has_input(7) else np.zeros(0)
    if peepholes is None or peepholes.any():
        return unrolled_lstm(n, r.attrs(["sigmoid", "tanh", "tanh"]), r.layout)
    w, rec = r.weights(_LSTM_ORDER)
    node = n.op_node("LSTMSequence", [r.x, r.state(5), r.state(6), r.lengths(), w, rec,
                                      r.bias(_LSTM_ORDER)], **r.attrs(["sigmoid", "tanh", "tanh"]))
    return r.outputs(node)
