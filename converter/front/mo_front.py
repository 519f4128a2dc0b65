"""MO's own front-phase ops for framework ops extgen extracts as opset ops of another form.

MO's ONNX extractors made a Flatten a `FlattenONNX` (an `axis`, one input, no type), a
GlobalAveragePool or GlobalMaxPool a `Pooling` with `global_pool` (one input), a Pad before opset
11 an `AttributedPad` (an MXNet Pad too) and an LRN an `AttributedLRN` (one input each; a Caffe LRN
too), a later Pad an `ONNXPad` (a TF Pad a `TFPad`: its pads one constant input). A convolution
with a bias was one node with the bias as input 2 (ONNX `Conv`, Caffe `Conv2D`, MXNet
`Convolution`, and `Deconv2D`), an affine layer one `FullyConnected` (Kaldi, Caffe, MXNet; its bias
port unconnected without one), an ONNX Gemm one `Gemm`, a scale and shift one `ScaleShift` (Caffe
Scale, Kaldi's scale components), a TF ConcatV2 a `ConcatV2` with its axis as the last input, a TF
Pack a `Pack` of the inputs themselves, an ONNX Slice MO's untyped `Slice` (axes before steps),
one of opset 9 an `AttributedSlice`, a TopK of opset 9 a TopK with `k` an attribute, a Softmax or
LogSoftmax a `SoftMaxONNX` or `LogSoftmaxONNX`, a Resize of opset 10 an `ONNXResize10`, a TF
ResizeBilinear or ResizeNearestNeighbor a `TFResize` of the data and the sizes.
extgen's translators write the opset ops at once (a Reshape with its shape input, a MatMul or
convolution and an Add, ...) and mark the node named as the layer `mo_front` with what MO's node
was (`absorbs`: the producer types MO's node took in); converter.legacy.front_ops shows that node
to legacy front passes (MO lowered a FullyConnected, a Gemm, the pads and most one-node ops early
in its front phase: to those ordered before FrontStart)."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.graph.port import Port

__all__ = ["MO_FRONT", "affine", "attributed_lrn", "attributed_pad", "concat_v2",
           "constant_of_shape", "convolution", "extracted", "flatten", "framework_pad", "gemm",
           "global_pool", "onnx_slice", "pack", "scale_shift", "tf_resize",
           "top_k_1"]

MO_FRONT = "mo_front"  # node attribute: MO's front op (op, type, version, inputs, attrs)


_CONVOLUTIONS = ("Convolution", "GroupConvolution")
_DECONVOLUTIONS = ("ConvolutionBackpropData", "GroupConvolutionBackpropData")


def _front(op: str, kind: str | None, version: str | None, inputs: int,
           absorbs: tuple[str, ...] = (), until: str | None = None,
           consts: dict[int, Any] | None = None, ports: dict[int, int] | None = None,
           unwraps: str | None = None, as_inputs: dict[int, str] | None = None,
           **attrs: Any) -> dict[str, Any]:
    """until: the anchor after which MO's front passes had lowered the op (FrontStart: only
    passes ordered before it see MO's op). consts: MO's constant inputs that extgen holds
    otherwise (port -> value). ports: which of extgen's inputs MO's ports had (MO's port ->
    extgen's; the others are out of the graph), where not the first `inputs` in order.
    unwraps: the type of op on each input that MO's node did itself (TF Pack's Unsqueezes):
    shown fed by that op's input instead. as_inputs: MO's attributes that a pass of MO's gave
    as an input instead (port -> attribute; TopKNormalize's `k`)."""
    return {"op": op, "type": kind, "version": version, "inputs": inputs, "attrs": attrs,
            "absorbs": absorbs, "until": until, "consts": consts or {}, "ports": ports or {},
            "unwraps": unwraps, "as_inputs": as_inputs or {}}


def affine(y: Port, product: Port) -> Port:
    """y: product (a MatMul), or the Add of a bias after it; marked MO's FullyConnected (its
    bias port unconnected without a bias)."""
    absorbs = ("MatMul",) if y.node.id != product.node.id else ()
    y.node[MO_FRONT] = _front("FullyConnected", "FullyConnected", None, 3, absorbs, "FrontStart")
    return y


def scale_shift(y: Port, product: Port) -> Port:
    """y: product (a Multiply by a scale), or the Add of a shift after it; marked MO's
    ScaleShift (Caffe Scale, Kaldi's scale components), its shift port unconnected without one."""
    absorbs = ("Multiply",) if y.node.id != product.node.id else ()
    y.node[MO_FRONT] = _front("ScaleShift", "ScaleShift", None, 3, absorbs)
    return y


def attributed_pad(pads: Any, mode: str | None, value: float) -> dict[str, Any]:
    """ONNX's Pad before opset 11: MO's AttributedPad (pads as [rank, 2] begin/end pairs)."""
    pairs = np.asarray(pads, np.int64).reshape(2, -1).T
    return _front("AttributedPad", None, None, 1, (), "FrontStart", pads=pairs, mode=mode,
                  fill_value=value)


def extracted(op: str, kind: str | None, inputs: int, version: str | None = None,
              until: str | None = "FrontStart", **attrs: Any) -> dict[str, Any]:
    """MO's extracted op of one node (an `EltwiseN`, an `AttributedPower`, a `CaffeSlice`, a
    `Flatten`, an `ExpandDims`, an `AttributedGather`, an `MVNOnnx`, ...): its first `inputs`
    inputs and attrs, to the passes before FrontStart, where MO's front passes lowered most of
    them (until=None: to every front pass; "FrontFinish": to those before it, where MO's front
    phase lowered it)."""
    return _front(op, kind, version, inputs, (), until, **attrs)


def onnx_slice(axes: bool, steps: bool) -> dict[str, Any]:
    """An ONNX Slice of opset 10 and later (Slice-8 in extgen: steps before axes): MO's untyped
    `Slice` of inputs data, starts, ends, axes, steps (those the model gave), through the front
    phase."""
    ports = {0: 0, 1: 1, 2: 2, **({3: 4} if axes else {}), **({4: 3} if steps else {})}
    return _front("Slice", None, None, 5, ports=ports)


def top_k_1(k: int, **attrs: Any) -> dict[str, Any]:
    """ONNX's TopK before opset 10: MO's TopK-3 of one input, `k` an attribute (its ports 1 and
    2 unconnected) until a front pass made it input 1, as TopKNormalize did."""
    return _front("TopK", "TopK", "opset3", 3, until="FrontFinish", ports={0: 0},
                  as_inputs={1: "k"}, k=k, **attrs)


def tf_resize(mode: str, align_corners: bool, half_pixel_centers: bool) -> dict[str, Any]:
    """A TF ResizeBilinear or ResizeNearestNeighbor (an Interpolate of the sizes converted to
    int64, on axes 1 and 2, in extgen): MO's TFResize of the data and the sizes, until
    FrontFinish."""
    return _front("TFResize", None, None, 2, until="FrontFinish", unwraps="Convert", mode=mode,
                  align_corners=align_corners, half_pixel_centers=half_pixel_centers,
                  data_type=np.dtype(np.float32))


def pack(axis: int, count: int) -> dict[str, Any]:
    """A TF Pack (a Concat of Unsqueezes, in extgen): MO's Pack of the count inputs, `axis`."""
    return _front("Pack", None, None, count, (), "FrontStart", unwraps="Unsqueeze", axis=axis)


def constant_of_shape(value: np.ndarray) -> dict[str, Any]:
    """ONNX's ConstantOfShape: MO's op of that name (its shape the one input, `fill_value`)."""
    return _front("ConstantOfShape", None, None, 1, ports={0: 1},
                  fill_value=np.asarray(value).reshape([1]))


def framework_pad(op: str, pads: np.ndarray, mode: str, value: bool) -> dict[str, Any]:
    """A TF Pad, PadV2 or MirrorPad (op TFPad, pads as [rank, 2] pairs) or an ONNX Pad (op
    ONNXPad, pads as all begins then all ends) of constant pads: MO's front op of inputs data,
    pads and (value: the model gave one) the pad value, lowered early in MO's front phase."""
    ports = {0: 0, 2: 3} if value else {0: 0}
    return _front(op, None, None, 3, (), "FrontStart", consts={1: np.asarray(pads)},
                  ports=ports, mode=mode)


def attributed_lrn(alpha: float, beta: float, bias: float, size: int,
                   region: str = "across") -> dict[str, Any]:
    """An ONNX or Caffe LRN: MO's AttributedLRN (type Norm, one input)."""
    return _front("AttributedLRN", "Norm", "opset1", 1, alpha=alpha, beta=beta, bias=bias,
                  local_size=size, region=region)


def convolution(y: Port, product: Port, op: str, kind: str = "Convolution",
                bias_port: bool = False) -> Port:
    """y: product (a convolution), or the Add of a bias after it, marked MO's one node (op
    `Conv`, `Conv2D`, `Convolution` or `Deconv2D` of type kind; inputs x, weights, bias).
    bias_port: MO's node had the bias port unconnected without a bias (ONNX's Conv)."""
    if y.node.id != product.node.id:
        absorbs = _CONVOLUTIONS if kind == "Convolution" else _DECONVOLUTIONS
        y.node[MO_FRONT] = _front(op, kind, "opset1", 3, absorbs)
    elif bias_port and y.node.soft_get("type") == kind:
        y.node[MO_FRONT] = _front(op, kind, "opset1", 3)
    return y


def gemm(**attrs: Any) -> dict[str, Any]:
    """MO's Gemm (alpha, beta, transpose_a, transpose_b) for the Add of C after the MatMul."""
    return _front("Gemm", None, None, 3, ("MatMul",), "FrontStart", **attrs)


def concat_v2(axis: int, count: int) -> dict[str, Any]:
    """A TF ConcatV2 of count inputs: MO's ConcatV2 (type Concat, no version, no `axis`), its
    axis a constant last input."""
    return _front("ConcatV2", "Concat", None, count + 1, consts={count: np.int32(axis)}, N=count,
                  axis=None)


def flatten(axis: int) -> dict[str, Any]:
    return _front("FlattenONNX", None, None, 1, axis=axis)


def global_pool(op: str, method: str) -> dict[str, Any]:
    """MO's global Pooling (method avg or max) of op name `op`: ONNX's GlobalAveragePool or
    GlobalMaxPool, Caffe's Pooling."""
    version = "opset1" if method == "avg" else "opset8"  # (MO's max pooling: MaxPool-8)
    return _front(op, "Pooling", version, 1, pool_method=method, global_pool=True,
                  pooling_convention="full")
