"""GRUSequence-5: a GRU layer over a sequence, gates in z, r, h order. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sequence/gru-sequence-5.html"""

from __future__ import annotations

import numpy as np

from converter.ops.recurrent._sequence import SequenceOp, activation, clipped, run_sequence

__all__ = ["GRUSequence"]


class GRUSequence(SequenceOp):
    """Inputs X, H, sequence_lengths, W [D, 3H, I], R [D, 3H, H], B [D, 3H] (or [D, 4H] with
    linear_before_reset: the h gate's input and recurrence biases apart)."""

    op = type = "GRUSequence"
    in_ports_count = 6
    out_ports_count = 2
    attr_types = {**SequenceOp.attr_types, "linear_before_reset": "bool"}
    defaults = {"activations": ["sigmoid", "tanh"], "activations_alpha": [],
                "activations_beta": [], "clip": 0.0, "linear_before_reset": False}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, h, lengths, w, r, b = inputs
        f, g = activation(attrs, 0), activation(attrs, 1)
        size = attrs["hidden_size"]

        def step(d, xt, states):
            wz, wr, wh = np.split(xt @ w[d].T, 3, axis=-1)
            rz, rr, rh = np.split(states[0] @ r[d].T, 3, axis=-1)
            bz, br, bh = b[d][:size], b[d][size:2 * size], b[d][2 * size:]
            z = f(clipped(attrs, wz + rz + bz))
            reset = f(clipped(attrs, wr + rr + br))
            if attrs["linear_before_reset"]:
                pre = wh + bh[:size] + reset * (rh + bh[size:])
            else:
                pre = wh + (reset * states[0]) @ r[d][2 * size:].T + bh
            hidden = g(clipped(attrs, pre))
            return [(1 - z) * hidden + z * states[0]]

        return run_sequence(attrs, x, lengths, [h], step)
