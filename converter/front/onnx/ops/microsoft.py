"""onnxruntime's com.microsoft fusions of transformer layers, in opset ops: the Gelu family,
BiasAdd, the skip and simplified (RMS) layer normalizations and BERT's embedding layer."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.ops.attention import like
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.int64
MS = "com.microsoft::"
# onnxruntime's defaults when epsilon is absent
_SKIP_EPS, _LAYER_EPS = 1e-12, 1e-5


def _plus(n: OnnxNode, x: Port, *terms: Port | None) -> Port:
    for term in terms:
        if term is not None:
            x = n.op("Add", [x, term])
    return x


def normalize(n: OnnxNode, x: Port, axes: Port, eps: float, simplified: bool
              ) -> tuple[Port, Port | None, Port]:
    """x normalized over axes (an RMS norm when simplified), its mean (None when simplified)
    and its inverse standard deviation, both kept per reduced row."""
    mean = None if simplified else n.op("ReduceMean", [x, axes], keep_dims=True)
    centered = x if simplified else n.op("Subtract", [x, mean])
    var = n.op("ReduceMean", [n.op("Multiply", [centered, centered]), axes], keep_dims=True)
    inv_std = n.op("Divide", [like(n, 1.0, x),
                              n.op("Sqrt", [n.op("Add", [var, like(n, eps, x)])])])
    return n.op("Multiply", [centered, inv_std]), mean, inv_std


def _gelu(n: OnnxNode, x: Port, mode: str) -> Port:
    return n.op("Gelu", [x], approximation_mode=mode)


@onnx_op(MS + "Gelu")
def gelu(n: OnnxNode):
    return [_gelu(n, n.input(0), "erf")]


@onnx_op(MS + "BiasGelu")
def bias_gelu(n: OnnxNode):
    return [_gelu(n, n.op("Add", [n.input(0), n.input(1)]), "erf")]


@onnx_op(MS + "FastGelu")
def fast_gelu(n: OnnxNode):
    return [_gelu(n, _plus(n, n.input(0), n.input(1)), "tanh")]


@onnx_op(MS + "QuickGelu")
def quick_gelu(n: OnnxNode):
    x = n.input(0)
    scaled = n.op("Multiply", [x, like(n, float(n.attr("alpha", 1.702)), x)])
    return [n.op("Multiply", [x, n.op("Sigmoid", [scaled])])]


@onnx_op(MS + "BiasAdd")
def bias_add(n: OnnxNode):
    return [_plus(n, n.input(0), n.input(1), n.input(2))]


def _skip_norm(n: OnnxNode, simplified: bool) -> list[Port]:
    """(Simplified)SkipLayerNormalization: input + skip + bias normalized over the last axis;
    outputs y, mean, inverse std and the sum."""
    bias = n.input(3 if simplified else 4)
    total = _plus(n, n.input(0), n.input(1), bias)
    y, mean, inv_std = normalize(n, total, n.const([-1], I64),
                                 float(n.attr("epsilon", _SKIP_EPS)), simplified)
    y = _plus(n, n.op("Multiply", [y, n.input(2)]), None if simplified else n.input(3))
    return [y, mean, inv_std, total]


@onnx_op(MS + "SkipLayerNormalization")
def skip_layer_norm(n: OnnxNode):
    return _skip_norm(n, simplified=False)


@onnx_op(MS + "SkipSimplifiedLayerNormalization")
def skip_simplified_layer_norm(n: OnnxNode):
    return _skip_norm(n, simplified=True)


@onnx_op("SimplifiedLayerNormalization", MS + "SimplifiedLayerNormalization")
def simplified_layer_norm(n: OnnxNode):
    """RMS norm over the axes from `axis` on; onnxruntime keeps it in the default domain."""
    axis, rank = int(n.attr("axis", -1)), n.static_rank(0)
    if axis >= 0:
        if rank is None:
            n.reject("cannot tell the input's rank", "give the model's inputs a shape")
        axis -= rank
    axes = n.const(np.arange(axis, 0), I64)
    y, _, inv_std = normalize(n, n.input(0), axes, float(n.attr("epsilon", _LAYER_EPS)), True)
    return [n.op("Multiply", [y, n.input(1)]), inv_std]


def _positions(n: OnnxNode, ids: Port) -> Port:
    """Position embeddings per token: by position_ids when given, else rows 0..S-1."""
    if n.has_input(8):
        return n.op("Gather", [n.input(3), n.input(8), np.array(0, I64)])
    shape = n.op("ShapeOf", [ids], output_type=np.dtype(I64))
    length = n.op("Gather", [shape, np.array([1], I64), np.array(0, I64)])
    return n.op("Slice", [n.input(3), np.array([0], I64), length, np.array([1], I64),
                          np.array([0], I64)])


@onnx_op(MS + "EmbedLayerNormalization")
def embed_layer_norm(n: OnnxNode):
    """Word + position (+ segment) embeddings, layer-normalized; mask_index counts each row's
    ones in mask (0 without one); embedding_sum is the sum before normalization."""
    ids = n.input(0)
    words = n.op("Gather", [n.input(2), ids, np.array(0, I64)])
    segments = None
    if n.has_input(1) and n.has_input(4):
        segments = n.op("Gather", [n.input(4), n.input(1), np.array(0, I64)])
    total = _plus(n, words, _positions(n, ids), segments)
    y, _, _ = normalize(n, total, n.const([-1], I64), float(n.attr("epsilon", _SKIP_EPS)),
                        False)
    y = n.op("Add", [n.op("Multiply", [y, n.input(5)]), n.input(6)])
    if n.has_input(7):
        mask = n.op("Convert", [n.input(7)], destination_type=np.dtype(np.int32))
        index = n.op("ReduceSum", [mask, np.array([1], I64)], keep_dims=False)
    else:
        shape = n.op("ShapeOf", [ids], output_type=np.dtype(I64))
        batch = n.op("Gather", [shape, np.array([0], I64), np.array(0, I64)])
        index = n.op("Broadcast", [n.const(0, np.int32), batch])
    return [y, index, total]
