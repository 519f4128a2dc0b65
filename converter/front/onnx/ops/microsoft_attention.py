"""onnxruntime's com.microsoft Attention and MultiHeadAttention in opset ops: heads split from
packed or separate projections, a past key/value cache, key masks in their 1-D (lengths), 2-D
and 3-D forms filled with mask_filter_value, an additive attention_bias and causality."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.ops.attention import (
    HEADS_FIRST,
    dims,
    key_lag,
    like,
    merge_heads,
    split_heads,
)
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.int64
MS = "com.microsoft::"


def _to_rank3(n: OnnxNode, mask: Port) -> Port:
    """mask [B], [B, T] or [B, S, T] as [B, 1, 1], [B, 1, T] or [B, S, T]."""
    shape = n.op("ShapeOf", [mask], output_type=np.dtype(I64))
    rank = n.op("ShapeOf", [shape], output_type=np.dtype(I64))
    ones = n.op("Broadcast", [n.const([1], I64), n.op("Subtract", [n.const([3], I64), rank])])
    head = n.op("Slice", [shape, np.array([0], I64), np.array([1], I64), np.array([1], I64)])
    tail = n.op("Slice", [shape, np.array([1], I64), np.array([2**62], I64), np.array([1], I64)])
    return n.op("Reshape", [mask, n.op("Concat", [head, ones, tail], axis=0)],
                special_zero=False)


def key_allowed(n: OnnxNode, i: int, k: Port) -> Port:
    """[B, 1, 1|S, T]: whether each key may be attended, from input i, a mask of key lengths
    [B] (keys from each length on are padding) or of 0 (padding) and 1 [B, T] or [B, S, T]."""
    if n.static_rank(i) == 4:
        n.reject("a 4-D mask_index is not supported", "pass a 2-D or 3-D attention mask")
    mask = n.input(i)
    zero = n.op("ConvertLike", [n.const(0, np.int32), mask])
    raw = n.op("NotEqual", [_to_rank3(n, mask), zero])
    first = n.op("Slice", [n.op("Reshape", [mask, np.array([0, -1], I64)], special_zero=True),
                           np.array([0], I64), np.array([1], I64), np.array([1], I64),
                           np.array([1], I64)])
    keys = n.op("Range", [np.array(0, I64), n.op("Squeeze", [dims(n, k, 2, 3)]),
                          np.array(1, I64)], output_type=np.dtype(I64))
    lengths = n.op("Less", [keys, n.op("Convert", [first], destination_type=np.dtype(I64))])
    rank = n.op("ShapeOf", [n.op("ShapeOf", [mask], output_type=np.dtype(I64))],
                output_type=np.dtype(I64))
    is_lengths = n.op("Equal", [rank, n.const([1], I64)])
    allowed = n.op("Select", [is_lengths, n.op("Unsqueeze", [lengths, np.array(1, I64)]), raw])
    return n.op("Unsqueeze", [allowed, np.array(1, I64)])


def attend(n: OnnxNode, q: Port, k: Port, v: Port, allowed: Port | None, bias: Port | None,
           fill: float) -> Port:
    """softmax(q k^T * scale (softcapped when the node asks) + bias, with fill added where not
    allowed) v, over heads [B, N, S, h], heads merged. A scale of 0 means 1/sqrt(h)."""
    if n.attr("scale"):
        scale = like(n, float(n.attr("scale")), q)
    else:
        scale = n.op("Power", [n.op("ConvertLike", [dims(n, q, 3, 4), q]), like(n, -0.5, q)])
    scores = n.op("Multiply", [n.op("MatMul", [q, k], transpose_b=True), scale])
    softcap = float(n.attr("softcap", 0.0))
    if softcap > 0:
        cap = like(n, softcap, q)
        scores = n.op("Multiply", [n.op("Tanh", [n.op("Divide", [scores, cap])]), cap])
    if allowed is not None:
        filler = n.op("Select", [allowed, like(n, 0.0, q), like(n, fill, q)])
        scores = n.op("Add", [scores, filler])
    if bias is not None:
        scores = n.op("Add", [scores, bias])
    probs = n.op("Softmax", [scores], axis=-1)
    return merge_heads(n, n.op("MatMul", [probs, v]))


def _attend_masked(n: OnnxNode, q: Port, k: Port, v: Port, past_len: Port | None,
                   mask: int) -> Port:
    """attend() to the keys input mask allows, causal after past_len when unidirectional,
    mask_filter_value filling the rest; attention_bias is input 5."""
    allowed = key_allowed(n, mask, k) if n.has_input(mask) else None
    if n.attr("unidirectional", 0):
        offset = past_len if past_len is not None else n.const(0, I64)
        causal = n.op("GreaterEqual", [key_lag(n, q, k, offset), n.const(0, I64)])
        allowed = causal if allowed is None else n.op("LogicalAnd", [allowed, causal])
    return attend(n, q, k, v, allowed, n.input(5), float(n.attr("mask_filter_value", -10000.0)))


def _cut(n: OnnxNode, x: Port, start: int, stop: int) -> Port:
    """x[..., start:stop]."""
    return n.op("Slice", [x, np.array([start], I64), np.array([stop], I64), np.array([1], I64),
                          np.array([-1], I64)])


def _projections(n: OnnxNode, qkv: Port) -> list[Port]:
    """Q, K and V cut from the last axis of qkv, by qkv_hidden_sizes or in thirds."""
    sizes = n.attr("qkv_hidden_sizes")
    if not sizes:
        thirds = n.op("Reshape", [qkv, np.array([0, 0, 3, -1], I64)], special_zero=True)
        return [n.op("Gather", [thirds, np.array(i, I64), np.array(2, I64)]) for i in range(3)]
    ends = np.cumsum([0, *sizes])
    return [_cut(n, qkv, int(a), int(b)) for a, b in zip(ends[:-1], ends[1:])]


@onnx_op(MS + "Attention")
def attention(n: OnnxNode):
    """Self-attention over input @ weights (+ bias); past and present stack key and value."""
    if n.attr("do_rotary", 0) or n.attr("past_present_share_buffer", 0):
        n.reject("do_rotary and past_present_share_buffer are not supported",
                 "export the model without these onnxruntime fusions")
    heads = int(n.attr("num_heads"))
    qkv = n.op("MatMul", [n.input(0), n.input(1)])
    if n.has_input(2):
        qkv = n.op("Add", [qkv, n.input(2)])
    q, k, v = (split_heads(n, x, heads) for x in _projections(n, qkv))
    past_len = None
    if n.has_input(4):
        past = n.input(4)
        past_len = dims(n, past, 3, 4)
        k, v = (n.op("Concat", [n.op("Gather", [past, np.array(i, I64), np.array(0, I64)]), x],
                     axis=2) for i, x in ((0, k), (1, v)))
    y = _attend_masked(n, q, k, v, past_len, 3)
    present = n.op("Concat", [n.op("Unsqueeze", [x, np.array(0, I64)]) for x in (k, v)], axis=0)
    return [y, present]


def _unpack(n: OnnxNode, packed: Port, count: int, heads: int, bias: Port | None) -> list[Port]:
    """[B, S, N, count, h] (+ bias [count * N * h]) as count tensors [B, N, S, h]."""
    if bias is not None:
        shaped = n.op("Reshape", [bias, np.array([count, heads, -1], I64)], special_zero=False)
        packed = n.op("Add", [packed, n.op("Transpose", [shaped, np.array([1, 0, 2], I64)])])
    return [n.op("Transpose", [n.op("Gather", [packed, np.array(i, I64), np.array(3, I64)]),
                               HEADS_FIRST]) for i in range(count)]


def _mha_inputs(n: OnnxNode, heads: int) -> tuple[Port, Port, Port]:
    """Q, K and V [B, N, S, h] from packed QKV, Q with packed KV, or Q, K and V."""
    ranks = [n.static_rank(i) for i in range(3)]
    if ranks[0] == 5:
        return tuple(_unpack(n, n.input(0), 3, heads, n.input(3)))
    if None in ranks[:2] or (ranks[1] == 3 and ranks[2] is None):
        n.reject("cannot tell the ranks of query, key and value", "give the inputs a shape")
    q = n.input(0)
    if not n.has_input(3):
        biases = [None] * 3
    else:
        size = dims(n, q, 2, 3)
        ends = [size, n.op("Add", [size, size]), n.const([2**62], I64)]
        biases = [n.op("Slice", [n.input(3), start, end, np.array([1], I64)])
                  for start, end in zip([n.const([0], I64), *ends[:2]], ends)]
        q = n.op("Add", [q, biases[0]])
    q = split_heads(n, q, heads)
    if ranks[1] == 5:
        bias = None if biases[1] is None else n.op("Concat", [biases[1], biases[2]], axis=0)
        return (q, *_unpack(n, n.input(1), 2, heads, bias))
    if ranks[1] == 4:
        return q, n.input(1), n.input(2)
    kv = [n.input(i) if b is None else n.op("Add", [n.input(i), b])
          for i, b in ((1, biases[1]), (2, biases[2]))]
    return (q, *(split_heads(n, x, heads) for x in kv))


@onnx_op(MS + "MultiHeadAttention")
def multi_head_attention(n: OnnxNode):
    if n.has_input(8) or n.has_input(9):
        n.reject("past_sequence_length and cache_indirection are not supported",
                 "export the model without a shared key/value buffer")
    if n.num_outputs > 3 and n.pb.output[3]:
        n.reject("the qk output is not supported", "leave the qk output unused")
    q, k, v = _mha_inputs(n, int(n.attr("num_heads")))
    past_len = None
    if n.has_input(6):
        past_len = dims(n, n.input(6), 2, 3)
        k = n.op("Concat", [n.input(6), k], axis=2)
        v = n.op("Concat", [n.input(7), v], axis=2)
    y = _attend_masked(n, q, k, v, past_len, 4)
    return [y, k, v]
