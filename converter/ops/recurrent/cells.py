"""LSTMCell-4, GRUCell-3 and RNNCell-0: one time step of LSTMSequence, GRUSequence and
RNNSequence (forward, every batch item active), which compute it.
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sequence/lstm-cell-4.html

Inputs X [batch, input_size], the states [batch, hidden_size] each, then W, R and B as the
sequence op takes them without the direction axis. Outputs the new states.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op
from converter.ops.recurrent._sequence import SequenceOp, unknown_activations
from converter.ops.recurrent.gru_sequence import GRUSequence
from converter.ops.recurrent.lstm_sequence import LSTMSequence
from converter.ops.recurrent.rnn_sequence import RNNSequence

__all__ = ["GRUCell", "LSTMCell", "RNNCell"]


class _Cell(Op):
    sequence: ClassVar[type[SequenceOp]]

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        x = shapes[0] or (DYN, DYN)
        batch = x[0] if x[0] != DYN else (shapes[1] or (DYN,))[0]
        return [(batch, attrs["hidden_size"])] * cls.sequence.states

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0]] * cls.sequence.states

    @classmethod
    def check_inputs(cls, attrs, shapes, types, values):
        return unknown_activations(attrs) or super().check_inputs(attrs, shapes, types, values)

    @classmethod
    def evaluate(cls, attrs, inputs):
        count = cls.sequence.states
        x, states, weights = inputs[0], inputs[1:1 + count], inputs[1 + count:]
        lengths = np.ones(len(x), np.int64)
        out = cls.sequence.evaluate(
            {**attrs, "direction": "forward"},
            [x[:, None], *(s[:, None] for s in states), lengths, *(w[None] for w in weights)])
        return [state[:, 0] for state in out[1:]]


def _attrs(sequence: type[SequenceOp]) -> dict:
    return {k: v for k, v in sequence.attr_types.items() if k != "direction"}


class LSTMCell(_Cell):
    op = type = "LSTMCell"
    version = "opset4"
    sequence = LSTMSequence
    in_ports_count = 6
    out_ports_count = 2
    attr_types = _attrs(LSTMSequence)
    defaults = LSTMSequence.defaults


class GRUCell(_Cell):
    op = type = "GRUCell"
    version = "opset3"
    sequence = GRUSequence
    in_ports_count = 5
    attr_types = _attrs(GRUSequence)
    defaults = GRUSequence.defaults


class RNNCell(_Cell):
    op = type = "RNNCell"
    version = "opset3"
    sequence = RNNSequence
    in_ports_count = 5
    attr_types = _attrs(RNNSequence)
    defaults = RNNSequence.defaults
