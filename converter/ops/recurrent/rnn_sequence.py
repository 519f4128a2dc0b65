"""RNNSequence-5: a plain recurrent layer over a sequence, H = f(X W^T + H R^T + B). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sequence/rnn-sequence-5.html"""

from __future__ import annotations

from converter.ops.recurrent._sequence import SequenceOp, activation, clipped, run_sequence

__all__ = ["RNNSequence"]


class RNNSequence(SequenceOp):
    """Inputs X, H, sequence_lengths, W [D, H, I], R [D, H, H], B [D, H]."""

    op = type = "RNNSequence"
    in_ports_count = 6
    out_ports_count = 2
    defaults = {"activations": ["tanh"], "activations_alpha": [], "activations_beta": [],
                "clip": 0.0}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, h, lengths, w, r, b = inputs
        f = activation(attrs, 0)

        def step(d, xt, states):
            return [f(clipped(attrs, xt @ w[d].T + states[0] @ r[d].T + b[d]))]

        return run_sequence(attrs, x, lengths, [h], step)
