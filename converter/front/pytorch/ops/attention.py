"""Attention written out, softmax(q k^T * scale + mask) v: aten::scaled_dot_product_attention
and nn.MultiheadAttention's fused fast path."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.ops._common import I64, shape_of
from converter.front.pytorch.translator import TorchNode, aten_op
from converter.graph.port import Port


def _dim(n: TorchNode, x: Port, k: int) -> Port:
    """x's dim k (negative from the end) as an i64 scalar."""
    return n.op("Gather", [shape_of(n, x), n.const(k, np.int64), n.const(0, np.int64)])


def _masked(n: TorchNode, keep: Port, like: Port) -> Port:
    """A boolean mask as the additive one: 0 where kept, -inf elsewhere."""
    zero = n.op("ConvertLike", [n.const(0.0, np.float32), like])
    low = n.op("ConvertLike", [n.const(-np.inf, np.float32), like])
    return n.op("Select", [keep, zero, low])


def attend(n: TorchNode, q: Port, k: Port, v: Port, mask: Port | None, causal: bool,
           scale: float | None) -> Port:
    """softmax(q k^T * scale + mask) v over q, k, v of [..., L, E]; a boolean mask keeps its
    true positions, another is added; scale None: 1/sqrt(E)."""
    scores = n.op("MatMul", [q, k], transpose_b=True)
    if scale is None:
        depth = n.op("ConvertLike", [_dim(n, q, -1), q])
        factor = n.op("Divide", [n.op("ConvertLike", [n.const(1.0), q]), n.op("Sqrt", [depth])])
    else:
        factor = n.op("ConvertLike", [n.const(float(scale)), q])
    scores = n.op("Multiply", [scores, factor])
    if causal:
        rows = n.op("Range", [n.const(0, np.int64), _dim(n, q, -2), n.const(1, np.int64)],
                    output_type=I64)
        cols = n.op("Range", [n.const(0, np.int64), _dim(n, k, -2), n.const(1, np.int64)],
                    output_type=I64)
        keep = n.op("GreaterEqual", [n.op("Unsqueeze", [rows, n.const(1, np.int64)]), cols])
        scores = n.op("Add", [scores, _masked(n, keep, scores)])
    if mask is not None:
        boolean = n.element_type(mask) == np.bool_
        scores = n.op("Add", [scores, _masked(n, mask, scores) if boolean else mask])
    return n.op("MatMul", [n.op("Softmax", [scores], axis=-1), v])


@aten_op("aten::scaled_dot_product_attention")
def scaled_dot_product_attention(n: TorchNode):
    if n.value("enable_gqa", False):
        n.reject_arg("enable_gqa", "grouped-query attention is not supported")
    return [attend(n, n.tensor("query"), n.tensor("key"), n.tensor("value"),
                   n.arg("attn_mask"), bool(n.value("is_causal", False)), n.arg("scale"))]


@aten_op("aten::_native_multi_head_attention")
def native_multi_head_attention(n: TorchNode):
    """nn.MultiheadAttention's fast path (batch first, no mask): the packed q, k, v
    projections, attention per head, the output projection; no attention weights."""
    if n.arg("mask") is not None:
        n.reject_arg("mask", "a mask on the fused attention is not supported")
    heads = int(n.value("num_head"))
    weights = n.op_node("Split", [n.tensor("qkv_weight"), n.const(0, np.int64)], num_splits=3)
    biases = n.op_node("Split", [n.tensor("qkv_bias"), n.const(0, np.int64)], num_splits=3)
    split_heads = n.const([0, 0, heads, -1], np.int64)
    order = n.const([0, 2, 1, 3], np.int64)
    per_head = []
    for k, name in enumerate(("query", "key", "value")):
        x = n.op("Add", [n.op("MatMul", [n.tensor(name), weights.out_port(k)],
                              transpose_b=True), biases.out_port(k)])
        x = n.op("Reshape", [x, split_heads], special_zero=True)
        per_head.append(n.op("Transpose", [x, order]))
    y = n.op("Transpose", [attend(n, *per_head, None, False, None), order])
    y = n.op("Reshape", [y, n.const([0, 0, -1], np.int64)], special_zero=True)
    y = n.op("MatMul", [y, n.tensor("proj_weight")], transpose_b=True)
    return [n.op("Add", [y, n.tensor("proj_bias")]), None]
