"""--remove_memory: each state the caller carries becomes inputs and an output, laid out as the
legacy MO 2023.3 made them, so applications written for MO's IR feed the same ports:

- a node read at past frames (a splice, an Offset, a TdnnComponent's time offsets) keeps a
  window of its last K+1 values, K the largest delay read: the input `Parameter_0_for_id`
  (`id`, `id_1`, ... in the order the nodes are computed) holds the window of the previous
  call, the output `Result_for_id/strided_slice` the window of this call (fed back next call);
- a recurrent read (nnet3's `IfDefined(Offset(x, -t))`) keeps the t last values of x as the
  variable `Offset_x__tOffset_x__t_out`; an LSTM's cell and output (nnet1) as `id`, `id_1`;
- each read of such a state gets its own input `Parameter_<i>_for_<variable>` (MO made one
  Parameter per consumer), all fed the same value.

Unlike MO, whose state outputs keep only the first of N streams (a [1, dim] crop of the
batch), every state output here keeps all N streams, so the caller can feed it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from converter.front.kaldi.builder import DelayLines, GraphBuilder, check_delay
from converter.graph.graph import Node
from converter.graph.port import Port

__all__ = ["StateInputs", "next_state_id", "state_lines"]

_END = np.iinfo(np.int64).max


def next_state_id(b: GraphBuilder) -> str:
    """MO's next memory id: id, id_1, id_2, ..."""
    used = b.graph.graph.setdefault("kaldi_state_ids", [])
    used.append("id" if not used else f"id_{len(used)}")
    return used[-1]


@dataclass
class _State:
    source: str | Port | None  # what the state keeps: a node's name, or its port
    dim: int
    variable: str | None  # a window's is named at connect()
    recurrent: bool
    frames: int = 1
    reads: list[tuple[Node, int]] = field(default_factory=list)  # (read, frames back)


class StateInputs:
    """The drop-in for DelayLines under --remove_memory (the same delayed/connect calls)."""

    def __init__(self, b: GraphBuilder) -> None:
        self.b = b
        self.batch = b.graph.graph.get("kaldi_state", (True, 1))[1]
        self.states: dict[object, _State] = {}

    def delayed(self, name: str, k: int, dim: int, source: Port | None = None,
                variable: str | None = None, batch_from: Port | None = None) -> Port:
        """The value of node `name` (the port `source`, when given) from k calls ago; a
        variable name makes it a recurrent state of k frames, else it joins name's window."""
        check_delay(name, k)
        key = name if variable is None else variable
        state = self.states.setdefault(key, _State(source or name, dim, variable,
                                                           variable is not None))
        state.frames = max(state.frames, k if variable else k + 1)
        # the window's input comes at connect(), once its size and name are known
        hold = self.b.const(np.zeros((self.batch, dim), np.float32), f"{name}/hold")
        stop = _END if k == 1 else -(k - 1) * dim
        read = self.b.crop(hold, -k * dim, stop, f"{name}/delay_{k}").node
        state.reads.append((read, k))
        return read.out_port(0)

    def connect(self, port_of=None) -> None:
        """The inputs and outputs of every state, once the nodes exist (port_of(name) gives a
        node's port); windows in the order their nodes are computed, then recurrent states."""
        order = list(self.b.graph.nodes)
        windows = [s for s in self.states.values() if not s.recurrent]
        windows.sort(key=lambda s: order.index(self._port(s, port_of).node.id))
        for state in windows:
            state.variable = next_state_id(self.b)
        for state in windows + [s for s in self.states.values() if s not in windows]:
            self._lay_out(state, self._port(state, port_of))
        self.states.clear()

    @staticmethod
    def _port(state: _State, port_of) -> Port:
        if not isinstance(state.source, Port):
            state.source = port_of(state.source)
        return state.source

    def _lay_out(self, state: _State, current: Port) -> None:
        var, width = state.variable, state.frames * state.dim
        # MO: one input per read of a one-frame recurrent state; a longer one has an input
        # for its shift and one for its reads; a window one for both
        each = state.recurrent and state.frames == 1
        count = len(state.reads) if each else 1 + (state.recurrent and state.frames > 1)
        params = [self.b.parameter(f"Parameter_{i}_for_{var}", width, self.batch)
                  for i in range(count)]
        for i, param in enumerate(params):
            param.add_tensor_names([f"Parameter_{i}_for_{var}:0"])  # MO's port name too
        for i, (read, k) in enumerate(state.reads):
            hold = read.in_port(0).get_source().node
            param = params[i if each else -1]
            read.in_port(0).get_connection().set_source(param)
            self.b.graph.remove_node(hold.id)
            if k == state.frames:  # the whole input: MO read it as it is
                read.out_port(0).get_connection().set_source(param)
                bounds = [read.in_port(p).get_source() for p in (1, 2, 3)]
                self.b.graph.remove_nodes_from([read.id, *(b.node.id for b in bounds if b)])
        new = current
        if state.frames > 1:
            kept = self.b.crop(params[0], state.dim, width, f"{var}/kept")
            new = self.b.op("Concat", [kept, current], f"{var}/window", axis=1).out_port(0)
        # MO's Crop of the batch (CropToStridedSlice); all streams are kept here
        name = f"Result_for_{var}/strided_slice"
        crop = self.b.op("StridedSlice", [new, np.array([0, 0]), np.array([self.batch, 0]),
                                          np.array([1, 1])], name, begin_mask=[0, 1],
                         end_mask=[0, 1], new_axis_mask=[0, 0], shrink_axis_mask=[0, 0],
                         ellipsis_mask=[0, 0])
        crop.out_port(0).add_tensor_names([f"{name}:0"])
        self.b.result(crop.out_port(0), name, state=True)


def state_lines(b: GraphBuilder) -> DelayLines | StateInputs:
    """The graph's delay lines: variables (ReadValue/Assign), or --remove_memory's inputs."""
    return StateInputs(b) if b.graph.graph.get("kaldi_state", (False, 1))[0] else DelayLines(b)
