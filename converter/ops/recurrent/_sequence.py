"""What the *Sequence ops share: their inputs' layout, shape inference and the time loop.

X is [batch, seq_length, input_size], each state [batch, num_directions, hidden_size],
sequence_lengths [batch]; Y is [batch, num_directions, seq_length, hidden_size]. A batch item
past its length keeps its states and outputs zeros; the reverse direction reads its items from
length - 1 down to 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["ACTIVATIONS", "SequenceOp", "run_sequence", "unknown_activations"]

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0),
}

# (direction index, x at one step [batch, input], states [batch, hidden] each) -> new states
Step = Callable[[int, np.ndarray, list[np.ndarray]], list[np.ndarray]]


def num_directions(attrs: dict) -> int:
    return 2 if attrs["direction"] == "bidirectional" else 1


def clipped(attrs: dict, x: np.ndarray) -> np.ndarray:
    """x bounded to [-clip, clip] (clip 0: unbounded), as applied before each activation."""
    clip = attrs["clip"]
    return np.clip(x, -clip, clip) if clip > 0 else x


def activation(attrs: dict, i: int) -> Callable[[np.ndarray], np.ndarray]:
    return ACTIVATIONS[attrs["activations"][i].lower()]


def run_sequence(attrs: dict, x: np.ndarray, lengths: np.ndarray, states: Sequence[np.ndarray],
                 step: Step) -> list[np.ndarray]:
    """Y and the last states, running step over the sequence in each direction."""
    batch, steps = x.shape[:2]
    dirs = num_directions(attrs)
    hidden = attrs["hidden_size"]
    y = np.zeros((batch, dirs, steps, hidden), x.dtype)
    lengths = np.asarray(lengths).astype(np.int64).reshape(batch)
    finals = []
    for d in range(dirs):
        backward = attrs["direction"] == "reverse" or d == 1
        current = [np.asarray(s)[:, d].astype(x.dtype) for s in states]
        for t in reversed(range(steps)) if backward else range(steps):
            active = (t < lengths)[:, None]
            new = step(d, x[:, t], current)
            current = [np.where(active, n, c).astype(x.dtype) for n, c in zip(new, current)]
            y[:, d, t] = np.where(active, current[0], 0)
        finals.append(current)
    return [y] + [np.stack([f[k] for f in finals], axis=1) for k in range(len(states))]


class SequenceOp(Op):
    """Base of the *Sequence ops: inputs X, the states, sequence_lengths, W, R, B."""

    version = "opset5"
    states: ClassVar[int] = 1  # how many state inputs follow X (and outputs follow Y)
    attr_types = {
        "hidden_size": "int", "direction": "str", "activations": "strs",
        "activations_alpha": "floats", "activations_beta": "floats", "clip": "float",
    }

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        x = shapes[0] or (DYN, DYN, DYN)
        state = shapes[1] or (DYN, DYN, DYN)
        batch = x[0] if x[0] != DYN else state[0]
        dirs, hidden = num_directions(attrs), attrs["hidden_size"]
        return [(batch, dirs, x[1], hidden)] + [(batch, dirs, hidden)] * cls.states

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0]] * (1 + cls.states)

    @classmethod
    def check_inputs(cls, attrs, shapes, types, values):
        return unknown_activations(attrs) or super().check_inputs(attrs, shapes, types, values)


def unknown_activations(attrs: dict) -> str | None:
    """What is wrong with the `activations` attribute, or None."""
    unknown = [a for a in attrs["activations"] if a.lower() not in ACTIVATIONS]
    if unknown:
        return f"activations {unknown} are not among {sorted(ACTIVATIONS)}"
    return None
