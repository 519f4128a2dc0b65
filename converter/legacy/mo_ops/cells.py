"""MO's LSTMCell, GRUCell and RNNCell: W and R concatenated in one input WR [gates * hidden,
input + hidden] (gates in the opset order), split into the opset cell's W and R inputs at
inference (MO's CellNormalizer). WR must be constant."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from converter.graph.graph import Node
from converter.legacy.mo_ops._base import MoOp, const_input, move_inputs
from converter.ops.recurrent.cells import GRUCell as _GRUCell
from converter.ops.recurrent.cells import LSTMCell as _LSTMCell
from converter.ops.recurrent.cells import RNNCell as _RNNCell

__all__ = ["GRUCell", "LSTMCell", "RNNCell"]

_RENAMED = {"activation_alpha": "activations_alpha", "activation_beta": "activations_beta"}


class _MoCell(MoOp):
    wr_port: ClassVar[int]
    gates: ClassVar[int]

    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        out = {_RENAMED.get(k, k): v for k, v in attrs.items()}
        return {k: v for k, v in out.items() if v is not None}

    @classmethod
    def prepare(cls, node: Node) -> None:
        super().prepare(node)
        if node.soft_get("wr_split", False):
            return
        port, hidden = cls.wr_port, int(node["hidden_size"])
        wr = node.in_port(port).data.get_value()
        if wr is None:
            msg = f"'{node.soft_get('name', node.id)}': MO's {cls.__name__} needs a constant WR"
            raise ValueError(msg)
        wr = np.reshape(wr, (cls.gates * hidden, -1))
        move_inputs(node, [*range(port), None, None, port + 1])
        const_input(node, port, wr[:, :-hidden], dtype=wr.dtype)
        const_input(node, port + 1, wr[:, -hidden:], dtype=wr.dtype)
        node["wr_split"] = True


class LSTMCell(_MoCell, _LSTMCell):
    """mo.ops.lstm_cell.LSTMCell: inputs X, H, C, WR, B."""

    wr_port, gates = 3, 4


class GRUCell(_MoCell, _GRUCell):
    """mo.ops.GRUCell.GRUCell: inputs X, H, WR, B."""

    wr_port, gates = 2, 3


class RNNCell(_MoCell, _RNNCell):
    """mo.ops.RNNCell.RNNCell: inputs X, H, WR, B."""

    wr_port, gates = 2, 1
