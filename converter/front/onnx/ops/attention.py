"""ONNX Attention (opsets 23 to 25) as scaled dot-product attention in opset ops: heads split
from 3-D inputs, a past key/value cache, grouped-query heads, softcap, an additive bias from the
mask, causality, a sliding window and nonpad_kv_seqlen, and the optional qk_matmul_output."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.ops.movement import known_dtype
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.int64
HEADS_FIRST = np.array([0, 2, 1, 3], I64)
_BOOL_OPS = {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
             "LogicalOr", "LogicalXor", "LogicalNot", "IsNaN", "IsInf", "IsFinite"}


def like(n: OnnxNode, value: float, x: Port) -> Port:
    """A scalar in x's element type."""
    return n.op("ConvertLike", [n.const(value, np.float32), x])


def dims(n: OnnxNode, x: Port, start: int, stop: int) -> Port:
    """x's dimensions start..stop-1, 1-D i64."""
    shape = n.op("ShapeOf", [x], output_type=np.dtype(I64))
    return n.op("Gather", [shape, np.arange(start, stop, dtype=I64), np.array(0, I64)])


def split_heads(n: OnnxNode, x: Port, heads: int) -> Port:
    """[B, S, heads * d] as [B, heads, S, d]."""
    split = n.op("Reshape", [x, np.array([0, 0, heads, -1], I64)], special_zero=True)
    return n.op("Transpose", [split, HEADS_FIRST])


def merge_heads(n: OnnxNode, y: Port) -> Port:
    """[B, N, S, h] as [B, S, N * h]."""
    return n.op("Reshape", [n.op("Transpose", [y, HEADS_FIRST]), np.array([0, 0, -1], I64)],
                special_zero=True)


def repeat_heads(n: OnnxNode, x: Port, q: Port) -> Port:
    """x's heads [B, Hkv, S, d] each repeated in place up to q's head count."""
    reps = n.op("Divide", [dims(n, q, 1, 2), dims(n, x, 1, 2)])
    wide = n.op("Broadcast", [n.op("Unsqueeze", [x, np.array(2, I64)]), n.op("Concat", [
        np.array([1, 1], I64), reps, np.array([1, 1], I64)], axis=0)], mode="bidirectional")
    shape = n.op("Concat", [dims(n, q, 0, 2), dims(n, x, 2, 4)], axis=0)
    return n.op("Reshape", [wide, shape], special_zero=False)


def _where(n: OnnxNode, allowed: Port, ref: Port) -> Port:
    """0 where allowed, -inf elsewhere, in ref's element type."""
    return n.op("Select", [allowed, like(n, 0.0, ref), like(n, -np.inf, ref)])


def _mask_bias(n: OnnxNode, q: Port, kv_len: Port) -> Port:
    """attn_mask as an additive bias (a boolean one: 0 where True, -inf where False), its last
    axis padded with -inf up to kv_len."""
    mask, rank = n.input(3), n.static_rank(3)
    dtype = _mask_type(mask)
    if rank is None or dtype is None:
        n.reject("cannot tell attn_mask's rank and element type before inference",
                 "give the model's inputs a shape, or feed attn_mask from a graph input")
    bias = _where(n, mask, q) if dtype == np.bool_ else mask
    short = n.op("Subtract", [kv_len, dims(n, bias, rank - 1, rank)])
    pads_end = n.op("Concat", [np.zeros(rank - 1, I64), short], axis=0)
    return n.op("Pad", [bias, np.zeros(rank, I64), pads_end, like(n, -np.inf, q)])


def _mask_type(mask: Port) -> np.dtype | None:
    if mask.node.soft_get("op") in _BOOL_OPS:
        return np.dtype(np.bool_)
    return known_dtype(mask)


def key_lag(n: OnnxNode, q: Port, k: Port, offset: Port) -> Port:
    """How far each key j lies behind query i: i + offset - j, [Sq, Skv], or [B, 1, Sq, Skv]
    for a per-batch offset [B, 1, 1, 1]."""
    rows, cols = (n.op("Range", [np.array(0, I64), n.op("Squeeze", [dims(n, x, 2, 3)]),
                                 np.array(1, I64)], output_type=np.dtype(I64)) for x in (q, k))
    return n.op("Subtract", [n.op("Add", [n.op("Unsqueeze", [rows, np.array(1, I64)]), offset]),
                             cols])


def _order_bias(n: OnnxNode, q: Port, k: Port, offset: Port) -> Port | None:
    """Causality (keys up to the query) and the sliding window as 0 / -inf, or None."""
    lag = key_lag(n, q, k, offset)
    left, right = int(n.attr("left_window_size", -1)), int(n.attr("right_window_size", -1))
    rules = [n.op("GreaterEqual", [lag, n.const(0, I64)])] if n.attr("is_causal", 0) else []
    if left >= 0:
        rules.append(n.op("LessEqual", [lag, n.const(left, I64)]))
    if right >= 0:
        rules.append(n.op("GreaterEqual", [lag, n.const(-right, I64)]))
    if not rules:
        return None
    allowed = rules[0]
    for rule in rules[1:]:
        allowed = n.op("LogicalAnd", [allowed, rule])
    return _where(n, allowed, q)


def _bias(n: OnnxNode, q: Port, k: Port, past_len: Port | None) -> Port | None:
    """The additive bias of the scores [.., Sq, Skv]: mask, causality, sliding window and
    nonpad_kv_seqlen."""
    kv_len = dims(n, k, 2, 3)
    parts = [_mask_bias(n, q, kv_len)] if n.has_input(3) else []
    nonpad = n.input(6)
    if nonpad is not None:
        nonpad = n.op("Reshape", [n.op("Convert", [nonpad], destination_type=np.dtype(I64)),
                                  np.array([-1, 1, 1, 1], I64)], special_zero=False)
    if past_len is not None:
        offset = past_len
    elif nonpad is not None:
        offset = n.op("Subtract", [nonpad, dims(n, q, 2, 3)])
    else:
        offset = n.const(0, I64)
    parts.append(_order_bias(n, q, k, offset))
    if nonpad is not None:
        cols = n.op("Range", [np.array(0, I64), n.op("Squeeze", [kv_len]), np.array(1, I64)],
                    output_type=np.dtype(I64))
        parts.append(_where(n, n.op("Less", [cols, nonpad]), q))
    parts = [p for p in parts if p is not None]
    bias = parts[0] if parts else None
    for part in parts[1:]:
        bias = n.op("Add", [bias, part])
    return bias


def _scores(n: OnnxNode, q: Port, k: Port) -> Port:
    """Q K^T, with the scale's square root applied to each side."""
    if n.has_attr("scale"):
        root = like(n, float(np.sqrt(n.attr("scale"))), q)
    else:
        head = n.op("ConvertLike", [dims(n, q, 3, 4), q])
        root = n.op("Power", [head, like(n, -0.25, q)])
    return n.op("MatMul", [n.op("Multiply", [q, root]), n.op("Multiply", [k, root])],
                transpose_b=True)


def _softcap(n: OnnxNode, scores: Port, q: Port) -> Port:
    softcap = float(n.attr("softcap", 0.0))
    if softcap <= 0:
        return scores
    cap = like(n, softcap, q)
    return n.op("Multiply", [n.op("Tanh", [n.op("Divide", [scores, cap])]), cap])


def _heads(n: OnnxNode, i: int, heads_attr: str) -> Port:
    x = n.input(i)
    rank = n.static_rank(i)
    if rank is None:
        n.reject("cannot tell whether Q, K and V are 3-D or 4-D", "give the inputs a shape")
    return split_heads(n, x, int(n.attr(heads_attr))) if rank == 3 else x


@onnx_op("Attention", since=23)
def attention(n: OnnxNode):
    three_d = n.static_rank(0) == 3
    q = _heads(n, 0, "q_num_heads")
    k, v = _heads(n, 1, "kv_num_heads"), _heads(n, 2, "kv_num_heads")
    past_len = None
    if n.has_input(4):
        past_len = dims(n, n.input(4), 2, 3)
        k = n.op("Concat", [n.input(4), k], axis=2)
        v = n.op("Concat", [n.input(5), v], axis=2)
    present_k, present_v = k, v
    if not three_d or n.attr("q_num_heads") != n.attr("kv_num_heads"):
        k, v = repeat_heads(n, k, q), repeat_heads(n, v, q)
    scores = _scores(n, q, k)
    capped = _softcap(n, scores, q)
    bias = _bias(n, q, k, past_len)
    biased = capped if bias is None else n.op("Add", [capped, bias])
    probs = _softmax(n, biased, q)
    if bias is not None:
        probs = n.op("Select", [_fully_masked(n, bias), like(n, 0.0, q), probs])
    y = n.op("MatMul", [probs, v])
    if three_d:
        y = merge_heads(n, y)
    # qk_matmul_output: 0 the product, 1 softcapped, 2 biased, 3 the probabilities
    qk = [scores, capped, biased, probs][int(n.attr("qk_matmul_output_mode", 0))]
    return [y, present_k, present_v, qk]


def _fully_masked(n: OnnxNode, bias: Port) -> Port:
    """Rows whose bias is -inf throughout; tested in f32 against a finite bound, since
    OpenVINO may hold -inf as the lowest finite value."""
    top = n.op("ReduceMax", [bias, np.array(-1, I64)], keep_dims=True)
    top = n.op("Convert", [top], destination_type=np.dtype(np.float32))
    return n.op("LessEqual", [top, n.const(-3e38, np.float32)])


def _softmax(n: OnnxNode, x: Port, ref: Port) -> Port:
    if not n.has_attr("softmax_precision"):
        return n.op("Softmax", [x], axis=-1)
    wide = n.op("Convert", [x], destination_type=np.dtype(np.float32))
    return n.op("ConvertLike", [n.op("Softmax", [wide], axis=-1), ref])
