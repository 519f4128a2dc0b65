"""onnxruntime's com.microsoft RotaryEmbedding and GroupQueryAttention in opset ops: rotary
positions from position_ids or the past length, and grouped-query attention over a past
key/value cache of one length per batch, with per-batch key lengths (seqlens_k), causality, a
local window, softcap and an attention_bias."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.ops.attention import dims
from converter.front.onnx.ops.rotary import rotary
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.int64
MS = "com.microsoft::"
_UNSUPPORTED = {11: "head_sink", 12: "k_scale", 13: "v_scale", 14: "q_norm_weight",
                15: "k_norm_weight", 16: "query_seqlens"}


def _positions(n: OnnxNode, ids: Port, start: Port, length: Port) -> Port:
    """Positions [B|1, S]: ids [B, S] as they are, or a 1-D ids [1] (or start [1] when ids is
    None) as the first of S consecutive ones."""
    steps = n.op("Range", [np.array(0, I64), n.op("Squeeze", [length]), np.array(1, I64)],
                 output_type=np.dtype(I64))
    if ids is None:
        return n.op("Unsqueeze", [n.op("Add", [steps, start]), np.array(0, I64)])
    ids = n.op("Convert", [ids], destination_type=np.dtype(I64))
    first = n.op("Gather", [n.op("Reshape", [ids, np.array([-1], I64)], special_zero=False),
                            np.array(0, I64), np.array(0, I64)])
    run = n.op("Unsqueeze", [n.op("Add", [steps, first]), np.array(0, I64)])
    rank = n.op("ShapeOf", [n.op("ShapeOf", [ids], output_type=np.dtype(I64))],
                output_type=np.dtype(I64))
    return n.op("Select", [n.op("Equal", [rank, n.const([1], I64)]), run, ids])


@onnx_op(MS + "RotaryEmbedding")
def rotary_embedding(n: OnnxNode):
    if n.attr("is_packed_batching", 0) or float(n.attr("scale", 1.0)) != 1.0:
        n.reject("is_packed_batching and scale are not supported")
    x = n.input(0)
    length = dims(n, x, 1, 2) if n.static_rank(0) == 3 else dims(n, x, 2, 3)
    positions = _positions(n, n.input(1), None, length)
    return [rotary(n, x, (n.input(2), n.input(3)), positions)]
