"""aten::scaled_dot_product_attention written out: softmax(q k^T * scale + mask) v."""

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


@aten_op("aten::scaled_dot_product_attention")
def scaled_dot_product_attention(n: TorchNode):
    if n.value("enable_gqa", False):
        n.reject_arg("enable_gqa", "grouped-query attention is not supported")
    q, k, v = n.tensor("query"), n.tensor("key"), n.tensor("value")
    scores = n.op("MatMul", [q, k], transpose_b=True)
    scale = n.arg("scale")
    if scale is None:
        depth = n.op("ConvertLike", [_dim(n, q, -1), q])
        scale = n.op("Divide", [n.op("ConvertLike", [n.const(1.0), q]), n.op("Sqrt", [depth])])
    else:
        scale = n.op("ConvertLike", [n.const(float(scale)), q])
    scores = n.op("Multiply", [scores, scale])
    if n.value("is_causal", False):
        rows = n.op("Range", [n.const(0, np.int64), _dim(n, q, -2), n.const(1, np.int64)],
                    output_type=I64)
        cols = n.op("Range", [n.const(0, np.int64), _dim(n, k, -2), n.const(1, np.int64)],
                    output_type=I64)
        keep = n.op("GreaterEqual", [n.op("Unsqueeze", [rows, n.const(1, np.int64)]), cols])
        scores = n.op("Add", [scores, _masked(n, keep, scores)])
    mask = n.arg("attn_mask")
    if mask is not None:
        boolean = n.element_type(mask) == np.bool_
        scores = n.op("Add", [scores, _masked(n, mask, scores) if boolean else mask])
    return [n.op("MatMul", [n.op("Softmax", [scores], axis=-1), v])]
