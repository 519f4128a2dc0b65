"""nnet1's LstmProjected: an LSTM cell with peepholes and a projection, its previous cell
and projected output kept as state (ReadValue/Assign, or inputs/outputs with
--remove_memory). Per frame, gates [g, i, f, o] = W_x x + W_r r(t-1) + b:

    c = sig(f + p_f c(t-1)) c(t-1) + sig(i + p_i c(t-1)) tanh(g)   (clipped to +-<CellClip>)
    r = W_rm (sig(o + p_o c) tanh(c))
"""

from __future__ import annotations

import numpy as np

from converter.front.kaldi.builder import GraphBuilder
from converter.front.kaldi.states import next_state_id, state_lines
from converter.front.kaldi.translator import KaldiNode, kaldi_op
from converter.graph.port import Port


@kaldi_op("LstmProjected", "LstmProjectedStreams")
def lstm_projected(n: KaldiNode) -> list[Port]:
    w_x, w_r, bias, p_i, p_f, p_o, w_rm = (n.comp.data(i) for i in range(7))
    cell, proj = p_i.size, w_rm.shape[0]
    if w_x.shape[0] != 4 * cell or w_r.shape != (4 * cell, proj) or w_rm.shape[1] != cell:
        n.reject(f"weights of shapes {[list(a.shape) for a in (w_x, w_r, w_rm)]} do not fit "
                 f"a cell of {cell}", "the model is corrupt")
    b = GraphBuilder.on(n.graph)
    lines, r_id, c_id = state_lines(b), next_state_id(b), next_state_id(b)
    # MO's zeros take the batch of the LSTM's input (the output state) and of the gates' split
    r_prev = lines.delayed(f"{n.name}/r", 1, proj, variable=r_id, batch_from=n.input(0))

    def dense(x: Port, w: np.ndarray) -> Port:
        return n.op("MatMul", [x, n.const(w, np.float32)], transpose_b=True)

    gates = n.op("Add", [n.op("Add", [dense(n.input(0), w_x), dense(r_prev, w_r)]),
                         n.const(bias[None], np.float32)])
    split = n.op_node("Split", [gates, np.int64(1)], num_splits=4, out_ports_count=4)
    g, i, f, o = (split.out_port(k) for k in range(4))
    # the previous cell has three readers, each its own input with --remove_memory (MO)
    c_f, c_i, c_prev = (lines.delayed(f"{n.name}/c", 1, cell, variable=c_id,
                                      batch_from=split.out_port(0)) for _ in range(3))

    def peephole(gate: Port, p: np.ndarray, c: Port) -> Port:
        return n.op("Sigmoid", [n.op("Add", [gate, n.op("Multiply", [
            c, n.const(p[None], np.float32)])])])

    c = n.op("Add", [n.op("Multiply", [peephole(f, p_f, c_f), c_prev]),
                     n.op("Multiply", [peephole(i, p_i, c_i), n.op("Tanh", [g])])])
    clip = n.comp.float("<CellClip>", 50.0)
    if clip > 0:
        c = n.op("Clamp", [c], min=-clip, max=clip)
    r = dense(n.op("Multiply", [peephole(o, p_o, c), n.op("Tanh", [c])]), w_rm)
    lines.connect({f"{n.name}/r": r, f"{n.name}/c": c}.__getitem__)
    return [r]
