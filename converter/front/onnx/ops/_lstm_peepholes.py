"""An ONNX LSTM with peepholes (input P), which OpenVINO's LSTMSequence lacks, unrolled over its
static number of steps into MatMul and elementwise ops, in ONNX's own gate order (i, o, f, c):

    i = f(Xt Wi + H Ri + Bi + Pi * C)      f_ = f(Xt Wf + H Rf + Bf + Pf * C)
    C' = f_ * C + i * g(Xt Wc + H Rc + Bc) o = f(Xt Wo + H Ro + Bo + Po * C')   H' = o * h(C')

each gate's pre-activation clipped (not C' before h, as onnxruntime); a batch item past its
sequence length keeps its states and outputs zeros."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.ops.reduce import _source_info
from converter.front.onnx.translator import OnnxNode
from converter.graph.port import Port

I64 = np.dtype(np.int64)
_ACTIVATION = {"sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "ReLU"}


class _Unrolled:
    def __init__(self, n: OnnxNode, activations: list[str], clip: float) -> None:
        self.n, self.clip = n, clip
        self.acts = [_ACTIVATION[a] for a in activations]

    def pick(self, port: Port, index: int, axis: int = 0) -> Port:
        return self.n.folded("Gather", [port, np.int64(index), np.int64(axis)]) \
            if port.node.soft_get("op") == "Const" \
            else self.n.op("Gather", [port, np.int64(index), np.int64(axis)])

    def act(self, k: int, x: Port) -> Port:
        if self.clip > 0:
            x = self.n.op("Clamp", [x], min=-self.clip, max=self.clip)
        return self.n.op(self.acts[k], [x])

    def step(self, x: Port, h: Port, c: Port, w: list[Port]) -> tuple[Port, Port]:
        """One LSTM step; w: W, R, B (summed) and P of one direction."""
        n = self.n
        gates = n.op("Add", [n.op("Add", [n.op("MatMul", [x, w[0]], transpose_b=True),
                                          n.op("MatMul", [h, w[1]], transpose_b=True)]), w[2]])
        split = n.op_node("Split", [gates, np.int64(-1)], num_splits=4)
        i, o, f, cell = (split.out_port(k) for k in range(4))
        peep = n.op_node("Split", [w[3], np.int64(0)], num_splits=3)
        i = self.act(0, n.op("Add", [i, n.op("Multiply", [peep.out_port(0), c])]))
        f = self.act(0, n.op("Add", [f, n.op("Multiply", [peep.out_port(2), c])]))
        c_new = n.op("Add", [n.op("Multiply", [f, c]), n.op("Multiply", [i, self.act(1, cell)])])
        o = self.act(0, n.op("Add", [o, n.op("Multiply", [peep.out_port(1), c_new])]))
        return n.op("Multiply", [o, self.n.op(self.acts[2], [c_new])]), c_new


def _summed_bias(n: OnnxNode, hidden: int, dirs: int) -> Port:
    """Input + recurrence biases [D, 4H] (zeros when B is omitted)."""
    if not n.has_input(3):
        return n.folded("ConvertLike", [np.zeros((dirs, 4 * hidden), np.float32), n.input(1)])
    halves = [n.folded("Slice", [n.input(3), np.array([k * 4 * hidden], I64),
                                 np.array([(k + 1) * 4 * hidden], I64), np.array([1], I64),
                                 np.array([1], I64)]) for k in (0, 1)]
    return n.folded("Add", halves)


def _stack(n: OnnxNode, ports: list[Port]) -> Port:
    """ports stacked along a new axis 0."""
    return n.op("Concat", [n.op("Unsqueeze", [p, np.array([0], I64)]) for p in ports], axis=0)


def unrolled_lstm(n: OnnxNode, attrs: dict, layout: int) -> list[Port]:
    """Y, Y_h, Y_c of the LSTM node n (attrs: the opset op's; layout: ONNX's)."""
    shape = _source_info(n.input(0))[0]
    steps = None if shape is None else shape[1 if layout else 0]
    if steps is None or steps < 0:
        n.reject("has peephole weights (input P), which extgen unrolls and so needs a static "
                 "sequence length", "give the model's inputs a shape (--input_shape)")
    u = _Unrolled(n, attrs["activations"], attrs["clip"])
    hidden, dirs = attrs["hidden_size"], 2 if attrs["direction"] == "bidirectional" else 1
    bias = _summed_bias(n, hidden, dirs)
    state_axis = 1 if layout else 0
    ys, finals = [], [[], []]
    for d in range(dirs):
        w = [u.pick(n.input(1), d), u.pick(n.input(2), d), u.pick(bias, d), u.pick(n.input(7), d)]
        x0 = u.pick(n.input(0), 0, 1 if layout else 0)
        zeros = n.op("Broadcast", [n.op("ConvertLike", [np.float32(0), x0]), n.op("Concat", [
            n.op("Gather", [n.op("ShapeOf", [x0], output_type=I64), np.array([0], I64),
                            np.int64(0)]), np.array([hidden], I64)], axis=0)])
        h = u.pick(n.input(5), d, state_axis) if n.has_input(5) else zeros
        c = u.pick(n.input(6), d, state_axis) if n.has_input(6) else zeros
        outs = [None] * steps
        backward = attrs["direction"] == "reverse" or d == 1
        for t in reversed(range(steps)) if backward else range(steps):
            xt = u.pick(n.input(0), t, 1 if layout else 0)
            h_new, c_new = u.step(xt, h, c, w)
            if n.has_input(4):
                live = n.op("Unsqueeze", [n.op("Less", [np.array(t, np.int32), n.input(4)]),
                                          np.array([-1], I64)])
                h, c = n.op("Select", [live, h_new, h]), n.op("Select", [live, c_new, c])
                outs[t] = n.op("Select", [live, h_new, zeros])
            else:
                h, c, outs[t] = h_new, c_new, h_new
        ys.append(outs)
        finals[0].append(h)
        finals[1].append(c)
    y = _stack(n, [_stack(n, [ys[d][t] for d in range(dirs)]) for t in range(steps)])
    states = [_stack(n, f) for f in finals]
    if layout:
        y = n.op("Transpose", [y, np.array([2, 0, 1, 3], I64)])
        states = [n.op("Transpose", [s, np.array([1, 0, 2], I64)]) for s in states]
    return [y, *states]
