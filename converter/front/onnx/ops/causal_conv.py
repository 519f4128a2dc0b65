"""ONNX CausalConvWithState (opset 27) in opset ops: the carried state (zeros when absent) before
the input along time, a depthwise GroupConvolution over it, bias and SiLU; the new state is the
last k - 1 steps of that sequence."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.dtype(np.int64)
_ACTIVATIONS = ("none", "silu", "swish")


def _time(n: OnnxNode, x: Port) -> Port:
    """x's length along axis 2, as a one-element i64 tensor."""
    return n.op("Gather", [n.op("ShapeOf", [x], output_type=I64), np.array([2], I64),
                           np.int64(0)])


def _zero_state(n: OnnxNode, x: Port, weight: Port) -> Port:
    """Zeros [batch, channels, k - 1] of x's type."""
    batch_channels = n.op("Slice", [n.op("ShapeOf", [x], output_type=I64), np.array([0], I64),
                                    np.array([2], I64), np.array([1], I64)])
    carried = n.op("Subtract", [_time(n, weight), np.array([1], I64)])
    shape = n.op("Concat", [batch_channels, carried], axis=0)
    zero = n.op("ConvertLike", [np.float32(0), x])
    return n.op("Broadcast", [zero, shape], mode="numpy")


@onnx_op("CausalConvWithState")
def causal_conv_with_state(n: OnnxNode) -> list[Port]:
    activation = n.attr("activation", "none")
    if activation not in _ACTIVATIONS:
        n.reject(f"activation '{activation}' is not one of {', '.join(_ACTIVATIONS)}",
                 "use 'silu', 'swish' or 'none'")
    x, weight, bias, past = (n.input(i) for i in range(4))
    if past is None:
        past = _zero_state(n, x, weight)
    sequence = n.op("Concat", [past, x], axis=2)
    filters = n.op("Unsqueeze", [weight, np.array([1], I64)])  # [C, 1, k] -> [C, 1, 1, k]
    y = n.op("GroupConvolution", [sequence, filters], strides=[1], pads_begin=[0],
             pads_end=[0], dilations=[1])
    if bias is not None:
        y = n.op("Add", [y, n.op("Unsqueeze", [bias, np.array([0, 2], I64)])])
    if activation != "none":
        y = n.op("Swish", [y])
    kept = n.op("Subtract", [_time(n, weight), np.array([1], I64)])
    start = n.op("Subtract", [_time(n, sequence), kept])
    state = n.op("Slice", [sequence, start, np.array([2**62], I64), np.array([1], I64),
                           np.array([2], I64)])
    return [y, state]
