"""MO's own front-phase ops for framework ops extgen extracts as opset ops of another form.

MO's ONNX extractors made a Flatten a `FlattenONNX` (an `axis`, one input, no type) and a
GlobalAveragePool or GlobalMaxPool a `Pooling` with `global_pool` (one input), and lowered them
in its front passes. A convolution with a bias was one node with the bias as input 2 (ONNX
`Conv`, Caffe `Conv2D`, MXNet `Convolution`, and `Deconv2D`), an affine layer one
`FullyConnected` (Kaldi, Caffe, MXNet; its bias port unconnected without one), an ONNX Gemm one
`Gemm`. extgen's translators write the opset ops at once (a Reshape with its shape input, a
ReduceMean with its axes, a MatMul or convolution and an Add) and mark the node named as the
layer `mo_front` with what MO's node was (`absorbs`: the producer types MO's node took in);
converter.legacy.front_ops shows that node to legacy front passes (MO lowered a
FullyConnected and a Gemm early in its front phase: to those ordered before FrontStart)."""

from __future__ import annotations

from typing import Any

from converter.graph.port import Port

__all__ = ["MO_FRONT", "affine", "convolution", "flatten", "gemm", "global_pool"]

MO_FRONT = "mo_front"  # node attribute: MO's front op (op, type, version, inputs, attrs)


_CONVOLUTIONS = ("Convolution", "GroupConvolution")
_DECONVOLUTIONS = ("ConvolutionBackpropData", "GroupConvolutionBackpropData")


def _front(op: str, kind: str | None, version: str | None, inputs: int,
           absorbs: tuple[str, ...] = (), until: str | None = None, **attrs: Any) -> dict[str, Any]:
    """until: the anchor after which MO's front passes had lowered the op (FrontStart: only
    passes ordered before it see MO's op)."""
    return {"op": op, "type": kind, "version": version, "inputs": inputs, "attrs": attrs,
            "absorbs": absorbs, "until": until}


def affine(y: Port, product: Port) -> Port:
    """y: product (a MatMul), or the Add of a bias after it; marked MO's FullyConnected (its
    bias port unconnected without a bias)."""
    absorbs = ("MatMul",) if y.node.id != product.node.id else ()
    y.node[MO_FRONT] = _front("FullyConnected", "FullyConnected", None, 3, absorbs, "FrontStart")
    return y


def convolution(y: Port, product: Port, op: str, kind: str = "Convolution") -> Port:
    """y: product (a convolution), or the Add of a bias after it, marked MO's one node (op
    `Conv`, `Conv2D`, `Convolution` or `Deconv2D` of type kind; inputs x, weights, bias)."""
    if y.node.id != product.node.id:
        absorbs = _CONVOLUTIONS if kind == "Convolution" else _DECONVOLUTIONS
        y.node[MO_FRONT] = _front(op, kind, "opset1", 3, absorbs)
    return y


def gemm(**attrs: Any) -> dict[str, Any]:
    """MO's Gemm (alpha, beta, transpose_a, transpose_b) for the Add of C after the MatMul."""
    return _front("Gemm", None, None, 3, ("MatMul",), "FrontStart", **attrs)


def flatten(axis: int) -> dict[str, Any]:
    return _front("FlattenONNX", None, None, 1, axis=axis)


def global_pool(op_type: str) -> dict[str, Any]:
    """MO's Pooling for ONNX's GlobalAveragePool or GlobalMaxPool."""
    method = "avg" if op_type == "GlobalAveragePool" else "max"
    return _front(op_type, "Pooling", "opset1", 1, pool_method=method, global_pool=True,
                  pooling_convention="full")
