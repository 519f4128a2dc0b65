"""LSTMSequence-5: an LSTM layer over a sequence, gates in f, i, c, o order. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sequence/lstm-sequence-5.html"""

from __future__ import annotations

import numpy as np

from converter.ops.recurrent._sequence import SequenceOp, activation, clipped, run_sequence

__all__ = ["LSTMSequence"]


class LSTMSequence(SequenceOp):
    """Inputs X, H, C, sequence_lengths, W [D, 4H, I], R [D, 4H, H], B [D, 4H]."""

    op = type = "LSTMSequence"
    in_ports_count = 7
    out_ports_count = 3
    states = 2
    defaults = {"activations": ["sigmoid", "tanh", "tanh"], "activations_alpha": [],
                "activations_beta": [], "clip": 0.0}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, h, c, lengths, w, r, b = inputs
        f, g, out = (activation(attrs, i) for i in range(3))

        def step(d, xt, states):
            gates = clipped(attrs, xt @ w[d].T + states[0] @ r[d].T + b[d])
            forget, inp, cell, output = np.split(gates, 4, axis=-1)
            c_new = f(forget) * states[1] + f(inp) * g(cell)
            return [f(output) * out(c_new), c_new]

        return run_sequence(attrs, x, lengths, [h, c], step)
