"""Keras' recurrent layers (SimpleRNN, LSTM, GRU, Bidirectional) unrolled over the static time
steps as plain TensorFlow ops, the state starting at zeros.

Weights, per cell (`cell/vars`): kernel [features, gates*units], recurrent kernel
[units, gates*units], bias [gates*units]; the gates in Keras' order, LSTM i, f, c, o and GRU
z, r, h. A GRU with reset_after keeps two bias rows, for the input and the recurrent side, and
applies the reset gate after the recurrent product.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from converter.front.tf.keras_layers import F32, Builder, activate, batch_size, layer, weights_of

__all__: list[str] = []

_GATES = {"SimpleRNN": 1, "LSTM": 4, "GRU": 3}


@dataclass
class _Cell:
    """One recurrent cell's emitting context: its recurrent kernels and biases per gate."""

    b: Builder
    name: str
    cfg: dict
    kernels: list[str]
    biases: list[str | None]

    def op(self, op: str, *xs: str) -> str:
        return self.b.node(op, self.name, list(xs), T=F32)

    def rec(self, h: str, gate: int) -> str:
        """h times the gate's recurrent kernel, plus its recurrent bias if any."""
        y = self.op("MatMul", h, self.kernels[gate])
        bias = self.biases[gate]
        return y if bias is None else self.op("AddV2", y, bias)

    def act(self, x: str) -> str:
        return activate(self.b, self.name, x, self.cfg.get("activation", "tanh"))

    def gate(self, x: str) -> str:
        return activate(self.b, self.name, x, self.cfg.get("recurrent_activation", "sigmoid"))


Step = Callable[[_Cell, list[str], str, str], tuple[str, str]]


def _simple(cell: _Cell, xt: list[str], h: str, c: str) -> tuple[str, str]:
    return cell.act(cell.op("AddV2", xt[0], cell.rec(h, 0))), c


def _lstm(cell: _Cell, xt: list[str], h: str, c: str) -> tuple[str, str]:
    i, f, g, o = (cell.op("AddV2", xt[k], cell.rec(h, k)) for k in range(4))
    c = cell.op("AddV2", cell.op("Mul", cell.gate(f), c), cell.op("Mul", cell.gate(i),
                                                                  cell.act(g)))
    return cell.op("Mul", cell.gate(o), cell.act(c)), c


def _gru(cell: _Cell, xt: list[str], h: str, c: str) -> tuple[str, str]:
    z = cell.gate(cell.op("AddV2", xt[0], cell.rec(h, 0)))
    r = cell.gate(cell.op("AddV2", xt[1], cell.rec(h, 1)))
    if cell.cfg.get("reset_after", True):
        inner = cell.op("Mul", r, cell.rec(h, 2))
    else:
        inner = cell.rec(cell.op("Mul", r, h), 2)
    hh = cell.act(cell.op("AddV2", xt[2], inner))
    one_minus_z = cell.op("Sub", cell.b.const(cell.name, F32.type(1)), z)
    return cell.op("AddV2", cell.op("Mul", z, h), cell.op("Mul", one_minus_z, hh)), c


_STEPS: dict[str, Step] = {"SimpleRNN": _simple, "LSTM": _lstm, "GRU": _gru}


def _time_step(b: Builder, name: str, seq: str, t: int) -> str:
    """seq[:, t, :]."""
    ints = [b.const(name, np.array(v, np.int32)) for v in ([0, t, 0], [0, t + 1, 0], [1, 1, 1])]
    return b.node("StridedSlice", name, [seq, *ints], T=F32, Index=np.int32, begin_mask=5,
                  end_mask=5, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=2)


def _split_bias(cfg: dict, weights: list[np.ndarray], gates: int) -> tuple[list, list]:
    """The input-side and recurrent-side bias of each gate (None where there is none)."""
    none = [None] * gates
    if not cfg.get("use_bias", True):
        return none, none
    bias = weights[2]
    if bias.ndim == 2:  # GRU reset_after: [input row, recurrent row]
        return np.split(bias[0], gates), np.split(bias[1], gates)
    return np.split(bias, gates), none


def _unroll(b: Builder, name: str, cfg: dict, x: str) -> list[str]:
    """The cell's output at each step, in the order processed (reversed for go_backwards)."""
    cls, shape = cfg["__class__"], cfg["__build__"]["input_shape"]
    if cfg.get("return_state") or cfg.get("stateful") or len(shape) != 3 or shape[1] is None:
        msg = f"{cls} returning its state, stateful, or over a sequence of unknown length"
        raise KeyError(msg)
    w, gates = weights_of(cfg, "cell"), _GATES[cls]
    in_bias, rec_bias = _split_bias(cfg, w, gates)
    seqs = []
    for kernel, bias in zip(np.split(w[0], gates, axis=-1), in_bias, strict=True):
        y = b.node("MatMul", name, [x, b.const(name, kernel)], T=F32)
        seqs.append(y if bias is None else b.node("BiasAdd", name, [y, b.const(name, bias)],
                                                  T=F32))
    cell = _Cell(b, name, cfg, [b.const(name, k) for k in np.split(w[1], gates, axis=-1)],
                 [None if r is None else b.const(name, r) for r in rec_bias])
    dims = b.node("Pack", name, [batch_size(b, name, x), b.const(name, np.int32(cfg["units"]))],
                  T=np.int32, N=2)
    h = c = b.node("Fill", name, [dims, b.const(name, F32.type(0))], T=F32, index_type=np.int32)
    outs = []
    steps = range(shape[1] - 1, -1, -1) if cfg.get("go_backwards") else range(shape[1])
    for t in steps:
        h, c = _STEPS[cls](cell, [_time_step(b, name, s, t) for s in seqs], h, c)
        outs.append(h)
    return outs


def _result(b: Builder, name: str, cfg: dict, outs: list[str], in_time_order: bool = False) -> str:
    """The last output, or all stacked on the time axis with return_sequences (put back in
    time order if asked)."""
    if not cfg.get("return_sequences"):
        return outs[-1]
    outs = outs[::-1] if in_time_order and cfg.get("go_backwards") else outs
    return b.node("Pack", name, outs, T=F32, N=len(outs), axis=1)


@layer(*_GATES)
def _recurrent(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    return _result(b, name, cfg, _unroll(b, name, cfg, xs[0]))


def _direction(cfg: dict, key: str, inner: dict, backwards: bool) -> dict:
    sub = {**inner["config"], "__class__": inner["class_name"], "__build__": cfg["__build__"],
           "__tree__": (cfg.get("__tree__") or {}).get(f"{key}_layer") or {}}
    if inner["class_name"] not in _GATES or bool(sub.get("go_backwards")) != backwards:
        msg = f"Bidirectional over {inner['class_name']}"
        raise KeyError(msg)
    return sub


@layer("Bidirectional")
def _bidirectional(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    """Both directions, the backward outputs put back in time order, then merged."""
    mode = cfg.get("merge_mode")
    if mode not in ("concat", "sum", "mul", "ave"):
        msg = f"Bidirectional with merge_mode {mode}"
        raise KeyError(msg)
    backward_spec = cfg.get("backward_layer") or {
        **cfg["layer"], "config": {**cfg["layer"]["config"], "go_backwards": True}}
    forward = _direction(cfg, "forward", cfg["layer"], False)
    backward = _direction(cfg, "backward", backward_spec, True)
    y = _result(b, name, forward, _unroll(b, name, forward, xs[0]))
    z = _result(b, name, backward, _unroll(b, name, backward, xs[0]), in_time_order=True)
    if mode == "concat":
        axis = b.const(name, np.int32(-1))
        return b.node("ConcatV2", name, [y, z, axis], T=F32, N=2, Tidx=np.int32)
    merged = b.node("Mul" if mode == "mul" else "AddV2", name, [y, z], T=F32)
    if mode == "ave":
        merged = b.node("Mul", name, [merged, b.const(name, F32.type(0.5))], T=F32)
    return merged
