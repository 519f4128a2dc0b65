"""ONNX RotaryEmbedding (opset 23) in opset ops: the first rotary_embedding_dim channels of each
head are rotated as (x1, x2) pairs, halves or interleaved, by the cos/sin caches."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.int64
_SWAP_12 = np.array([0, 2, 1, 3], I64)


def _pair(n: OnnxNode, x: Port, interleaved: bool) -> tuple[Port, Port]:
    """x's last axis as the two members of each rotated pair."""
    layout, axis = ([0, 0, 0, -1, 2], 4) if interleaved else ([0, 0, 0, 2, -1], 3)
    split = n.op("Reshape", [x, np.array(layout, I64)], special_zero=True)
    return tuple(n.op("Gather", [split, np.array(i, I64), np.array(axis, I64)]) for i in (0, 1))


def _cache(n: OnnxNode, cache: Port, positions: Port | None) -> Port:
    """A cache per [B, S, 1, r/2], picked by positions [B, S] when given."""
    if positions is not None:
        cache = n.op("Gather", [cache, positions, np.array(0, I64)])
    return n.op("Unsqueeze", [cache, np.array(2, I64)])


def rotate(n: OnnxNode, heads: Port, caches: tuple[Port, Port], positions: Port | None,
           dim: int, interleaved: bool) -> Port:
    """heads [B, S, N, h] with their first dim channels (all when 0) rotated by the (cos, sin)
    caches [max positions, dim/2] at positions [B, S] (caches [B, S, dim/2] when None)."""
    rotated, kept = heads, None
    if dim:
        cut = [np.array([0], I64), np.array([dim], I64), np.array([1], I64), np.array([3], I64)]
        rotated = n.op("Slice", [heads, *cut])
        kept = n.op("Slice", [heads, np.array([dim], I64), np.array([2**62], I64), *cut[2:]])
    x1, x2 = _pair(n, rotated, interleaved)
    cos, sin = (_cache(n, c, positions) for c in caches)
    real = n.op("Subtract", [n.op("Multiply", [cos, x1]), n.op("Multiply", [sin, x2])])
    imag = n.op("Add", [n.op("Multiply", [sin, x1]), n.op("Multiply", [cos, x2])])
    if interleaved:
        pairs = [n.op("Unsqueeze", [p, np.array(-1, I64)]) for p in (real, imag)]
        out = n.op("Reshape", [n.op("Concat", pairs, axis=-1), np.array([0, 0, 0, -1], I64)],
                   special_zero=True)
    else:
        out = n.op("Concat", [real, imag], axis=-1)
    return out if kept is None else n.op("Concat", [out, kept], axis=-1)


def _split(n: OnnxNode, x: Port, cos: Port) -> Port:
    """x [B, S, N * h] as [B, S, N, h]: N from num_heads, else h twice the cache's last axis."""
    heads = int(n.attr("num_heads", 0))
    if heads:
        return n.op("Reshape", [x, np.array([0, 0, heads, -1], I64)], special_zero=True)
    shape = n.op("ShapeOf", [cos], output_type=np.dtype(I64))
    half = n.op("Gather", [shape, np.array([-1], I64), np.array(0, I64)])
    size = n.op("Multiply", [half, n.const([2], I64)])
    return n.op("Reshape", [x, n.op("Concat", [np.array([0, 0, -1], I64), size], axis=0)],
                special_zero=True)


def rotary(n: OnnxNode, x: Port, caches: tuple[Port, Port], positions: Port | None) -> Port:
    """RotaryEmbedding over x, [B, S, N * h] or [B, N, S, h], by the node's attributes."""
    rank = n.static_rank(0)
    if rank not in (3, 4):
        n.reject("cannot tell whether the input is 3-D or 4-D", "give the inputs a shape")
    heads = n.op("Transpose", [x, _SWAP_12]) if rank == 4 else _split(n, x, caches[0])
    out = rotate(n, heads, caches, positions, int(n.attr("rotary_embedding_dim", 0)),
                 bool(n.attr("interleaved", 0)))
    if rank == 4:
        return n.op("Transpose", [out, _SWAP_12])
    shape = n.op("ShapeOf", [x], output_type=np.dtype(I64))
    return n.op("Reshape", [out, shape], special_zero=False)


@onnx_op("RotaryEmbedding", since=23)
def rotary_embedding(n: OnnxNode):
    return [rotary(n, n.input(0), (n.input(1), n.input(2)), n.input(3))]
