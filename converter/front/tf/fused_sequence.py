"""What the fused recurrent loops (lstm_fusion, gru_fusion) share: the sequence op's inputs
from the While's input list, and the While's outputs from the sequence op's."""

from __future__ import annotations

import numpy as np

from converter.front.tf.attrs import tf_dtype_extractor
from converter.front.tf.translator import TfNode
from converter.graph.port import Port

__all__ = ["loop_outputs", "sequence_inputs", "weight_value"]

_I64 = np.dtype(np.int64)


def sequence_inputs(n: TfNode, sequence: int, states: tuple[int, ...]) -> tuple[list, Port]:
    """([X [B, T, I], each state as [B, 1, H], sequence lengths [B]], the step count), from
    the While's input list [T, B, I] and its state inputs."""
    x = n.op("Transpose", [n.input(sequence), n.const([1, 0, 2], _I64)])
    shape = n.op("ShapeOf", [x], output_type=_I64)
    steps = n.op("Gather", [shape, n.const(1, _I64), n.const(0, _I64)], batch_dims=0)
    batch = n.op("Gather", [shape, n.const([0], _I64), n.const(0, _I64)], batch_dims=0)
    held = [n.op("Unsqueeze", [n.input(k), n.const([1], _I64)]) for k in states]
    return [x, *held, n.op("Broadcast", [steps, batch])], steps


def loop_outputs(n: TfNode, node, states: tuple[int, ...], steps: Port, counters: set[int],
                 output: int, stacked: bool) -> list[Port | None]:
    """The While's outputs: the final states (the sequence op's outputs 1...), the output list
    (every step's output, or the last one), counters at the step count, the rest unchanged."""
    outputs: list[Port | None] = [n.input(k) for k in range(n.num_inputs - 1)]
    types = n.pb.attr["T"].list.type
    for k in counters & set(range(len(outputs))):
        outputs[k] = n.op("Convert", [steps], destination_type=tf_dtype_extractor(types[k]))
    for i, k in enumerate(states):
        outputs[k] = n.op("Squeeze", [node.out_port(i + 1), n.const([1], _I64)])
    y = n.op("Squeeze", [node.out_port(0), n.const([1], _I64)])
    outputs[output] = (n.op("Transpose", [y, n.const([1, 0, 2], _I64)]) if stacked
                       else n.op("Unsqueeze", [outputs[states[0]], n.const([0], _I64)]))
    return outputs


def weight_value(n: TfNode, body, tensor: str) -> np.ndarray | None:
    """The constant a body tensor holds: a body Const, a loop variable the While feeds a
    constant, or a Squeeze, or an output of a Split or Unpack, of one (Keras 3 splits a GRU's
    [2, 3H] bias in the body)."""
    name, port = body.origin(tensor)
    node = body.nodes.get(name)
    k = body.param(tensor)
    if k is not None:
        return n.const_value(k)
    if node is None:
        return None
    if node.op == "Const":
        return body.const(tensor)
    if node.op == "Squeeze":
        value = weight_value(n, body, body.data(node)[0])
        axes = tuple(node.attr["squeeze_dims"].list.i) if "squeeze_dims" in node.attr else ()
        return None if value is None else np.squeeze(value, axis=axes or None)
    if node.op in ("Split", "Unpack"):
        data = body.data(node)
        value = weight_value(n, body, data[-1] if node.op == "Split" else data[0])
        axis = (body.const(data[0]) if node.op == "Split"
                else np.array(node.attr["axis"].i if "axis" in node.attr else 0))
        if value is None or axis is None:
            return None
        parts = np.split(value, value.shape[int(axis)], axis=int(axis)) if node.op == "Unpack" \
            else np.split(value, int(node.attr["num_split"].i), axis=int(axis))
        return np.squeeze(parts[port], axis=int(axis)) if node.op == "Unpack" else parts[port]
    return None
