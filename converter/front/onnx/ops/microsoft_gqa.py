"""onnxruntime's com.microsoft RotaryEmbedding and GroupQueryAttention in opset ops: rotary
positions from position_ids or each batch's past length, and grouped-query attention over a
past key/value cache (growing, or a fixed buffer) filled to a length per batch (seqlens_k),
with causality, a local window, softcap and an attention_bias."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.ops.attention import HEADS_FIRST, dims, key_lag, repeat_heads
from converter.front.onnx.ops.microsoft_attention import attend
from converter.front.onnx.ops.rotary import rotary, rotate
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.int64
MS = "com.microsoft::"
_UNSUPPORTED = {11: "head_sink", 12: "k_scale", 13: "v_scale", 14: "q_norm_weight",
                15: "k_norm_weight", 16: "query_seqlens"}


def _positions(n: OnnxNode, ids: Port, start: Port, length: Port) -> Port:
    """Positions [B|1, S]: ids [B, S] as they are, or a 1-D ids [1] (or each batch's start
    [B, 1] when ids is None) as the first of S consecutive ones."""
    steps = n.op("Range", [np.array(0, I64), n.op("Squeeze", [length]), np.array(1, I64)],
                 output_type=np.dtype(I64))
    if ids is None:
        return n.op("Add", [steps, start])
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


def _split_packed(n: OnnxNode, heads: int, kv_heads: int) -> list[Port]:
    """Q [B, S, N, h], K and V [B, S, Nkv, h] from separate inputs or a packed query."""
    if n.has_input(1):
        return [n.op("Reshape", [n.input(i), np.array([0, 0, count, -1], I64)],
                     special_zero=True) for i, count in ((0, heads), (1, kv_heads),
                                                         (2, kv_heads))]
    packed = n.op("Reshape", [n.input(0), np.array([0, 0, heads + 2 * kv_heads, -1], I64)],
                  special_zero=True)
    ends = np.cumsum([0, heads, kv_heads, kv_heads])
    return [n.op("Slice", [packed, np.array([a], I64), np.array([b], I64), np.array([1], I64),
                           np.array([2], I64)]) for a, b in zip(ends[:-1], ends[1:])]


def _rotary_dim(n: OnnxNode) -> int:
    """The channels rotated per head: twice the cos cache's width when it is a constant, else
    the whole head (0)."""
    cache = n.const_value(7)
    return 0 if cache is None else 2 * cache.shape[-1]


def _allowed(n: OnnxNode, q: Port, k: Port, start: Port) -> Port:
    """[B, 1, S, T]: keys below each batch's length (seqlens_k + 1), up to the query's position
    (start + row) when causal, and less than local_window_size behind it."""
    keys = n.op("Range", [np.array(0, I64), n.op("Squeeze", [dims(n, k, 2, 3)]),
                          np.array(1, I64)], output_type=np.dtype(I64))
    allowed = n.op("Less", [keys, n.op("Reshape", [_lengths(n), np.array([-1, 1, 1, 1], I64)],
                                       special_zero=False)])
    lag = key_lag(n, q, k, n.op("Reshape", [start, np.array([-1, 1, 1, 1], I64)],
                                special_zero=False))
    window = int(n.attr("local_window_size", -1))
    rules = [n.op("GreaterEqual", [lag, n.const(0, I64)])] if n.attr("causal", 1) else []
    if window >= 0:
        rules.append(n.op("Less", [lag, n.const(window, I64)]))
    for rule in rules:
        allowed = n.op("LogicalAnd", [allowed, rule])
    return allowed


def _lengths(n: OnnxNode) -> Port:
    """Each batch's total length [B] i64: seqlens_k + 1."""
    lengths = n.op("Convert", [n.input(5)], destination_type=np.dtype(I64))
    return n.op("Add", [lengths, n.const(1, I64)])


def _present(n: OnnxNode, past: Port, new: Port, start: Port) -> Port:
    """[B, Nkv, T, h]: each batch's past rows below its start, its new rows from there, zeros
    after; T is past + new rows for a growing cache, past rows for a fixed buffer (one that
    total_sequence_length does not exceed)."""
    rows, fresh = dims(n, past, 2, 3), dims(n, new, 2, 3)
    zero_shape = n.op("Concat", [dims(n, new, 0, 2), n.const([1], I64), dims(n, new, 3, 4)],
                      axis=0)
    zeros = n.op("Broadcast", [n.op("ConvertLike", [n.const(0.0, np.float32), new]), zero_shape])
    rows_zero = n.op("Add", [rows, fresh])  # where the zero row lands
    joined = n.op("Concat", [past, new, zeros], axis=2)
    total = n.op("Convert", [n.op("Reshape", [n.input(6), np.array([1], I64)],
                                  special_zero=False)], destination_type=np.dtype(I64))
    length = n.op("Select", [n.op("Greater", [total, rows]), rows_zero, rows])
    j = n.op("Range", [np.array(0, I64), n.op("Squeeze", [length]), np.array(1, I64)],
             output_type=np.dtype(I64))
    from_new = n.op("Add", [n.op("Subtract", [j, start]), rows])
    index = n.op("Select", [n.op("Less", [j, n.op("Add", [start, fresh])]), from_new, rows_zero])
    index = n.op("Select", [n.op("Less", [j, start]), j, index])
    return n.op("Gather", [joined, index, np.array(2, I64)], batch_dims=1)


@onnx_op(MS + "GroupQueryAttention")
def group_query_attention(n: OnnxNode):
    """Attention of N query heads over Nkv key/value heads. Each batch's new keys and values
    go into present after its past (seqlens_k + 1 - S rows, 0 for a first prompt)."""
    given = [name for i, name in _UNSUPPORTED.items() if n.has_input(i)]
    given += [a for a in ("sliding_window_cache", "smooth_softmax", "qk_output") if n.attr(a, 0)]
    if given:
        n.reject(f"{', '.join(given)} not supported", "export without KV-cache quantization, "
                 "sinks or windowed caches")
    heads, kv_heads = int(n.attr("num_heads")), int(n.attr("kv_num_heads"))
    q, k, v = _split_packed(n, heads, kv_heads)
    start = n.op("Maximum", [n.op("Subtract", [_lengths(n), dims(n, q, 1, 2)]), n.const(0, I64)])
    start = n.op("Unsqueeze", [start, np.array(1, I64)])
    if n.attr("do_rotary", 0):
        positions = _positions(n, n.input(9), start, dims(n, q, 1, 2))
        q, k = (rotate(n, x, (n.input(7), n.input(8)), positions, _rotary_dim(n),
                       bool(n.attr("rotary_interleaved", 0))) for x in (q, k))
    q, k, v = (n.op("Transpose", [x, HEADS_FIRST]) for x in (q, k, v))
    if n.has_input(3):
        k, v = _present(n, n.input(3), k, start), _present(n, n.input(4), v, start)
    fill = float(np.finfo(np.float32).min)
    y = attend(n, q, repeat_heads(n, k, q), repeat_heads(n, v, q), _allowed(n, q, k, start),
               n.input(10), fill)
    return [y, k, v]
