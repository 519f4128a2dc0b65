"""TensorFlow translators for the nn family: convolution, pooling, batch norm, bias, matmul,
softmax. NHWC data goes through converter.front.tf.ops._layout (NCHW op between Transposes)."""

from __future__ import annotations

import numpy as np

from converter.front.tf.attrs import convert_tf_padding_to_str, tf_data_format_spatial
from converter.front.tf.ops._layout import channels_last, permuted, to_nchw, to_nhwc
from converter.front.tf.translator import TfNode, tf_op
from converter.graph.port import Port

# TF filter layout -> OpenVINO weights layout: HWIO -> OIHW, DHWIO -> OIDHW
_FILTER_PERM = {4: [3, 2, 0, 1], 5: [4, 3, 0, 1, 2]}


def _rank(n: TfNode) -> int:
    return 5 if n.op_type.endswith("3D") or n.op_type.endswith("3DBackpropInputV2") else 4


def _window(n: TfNode, rank: int) -> dict:
    """strides and padding (auto_pad, pads_begin, pads_end) over the spatial axes."""
    fmt = n.data_format()
    spatial = tf_data_format_spatial(fmt)
    strides = list(n.attr("strides", [1] * rank))
    auto_pad = convert_tf_padding_to_str(n.attr("padding", "VALID"))
    nsp = rank - 2
    pads_begin, pads_end = [0] * nsp, [0] * nsp
    if auto_pad == "explicit":
        pads = list(n.attr("explicit_paddings", [0] * 2 * rank))
        pads_begin = [pads[2 * i] for i in spatial]
        pads_end = [pads[2 * i + 1] for i in spatial]
    return {"strides": [strides[i] for i in spatial], "auto_pad": auto_pad,
            "pads_begin": pads_begin, "pads_end": pads_end}


def _around(n: TfNode, x: Port, rank: int, build) -> Port:
    """build(x) in NCHW; transposes around it when the node's data is channels-last."""
    if not channels_last(n):
        return build(x)
    return to_nhwc(n, build(to_nchw(n, x, rank)), rank)


@tf_op("Conv2D", "Conv3D")
def conv(n: TfNode):
    rank = _rank(n)
    spatial = tf_data_format_spatial(n.data_format())
    dilations = list(n.attr("dilations", [1] * rank))
    attrs = {**_window(n, rank), "dilations": [dilations[i] for i in spatial]}
    w = permuted(n, n.input(1), _FILTER_PERM[rank])
    if _maybe_grouped(n, rank):
        return [_around(n, n.input(0), rank, lambda x: _grouped(n, x, w, attrs))]
    return [_around(n, n.input(0), rank, lambda x: n.op("Convolution", [x, w], **attrs))]


def _maybe_grouped(n: TfNode, rank: int) -> bool:
    """A one-input-channel filter on data that may have more channels: TF then convolves each
    channel on its own (Keras 3 writes its depthwise convolution so)."""
    filt = n.const_value(1)
    if rank != 4 or filt is None or filt.ndim != 4 or filt.shape[2] != 1:
        return False
    src = n.input(0).node
    shape = src.soft_get("shape", None) if src.soft_get("op") == "Parameter" else None
    return shape is None or shape[-1 if channels_last(n) else 1] != 1


def _grouped(n: TfNode, x: Port, w: Port, attrs: dict) -> Port:
    """GroupConvolution with one group per data channel; weights [O, 1, kh, kw] reshaped to
    [C, O/C, 1, kh, kw] from the data's shape (folded once the channel count is known)."""
    channels = n.op("Gather", [n.op("ShapeOf", [x]), n.const([1], np.int64),
                               n.const(0, np.int64)], batch_dims=0)
    kernel = n.const([-1, 1, *_constant_shape(w)[2:]], np.int64)
    shape = n.op("Concat", [channels, kernel], axis=0)
    return n.op("GroupConvolution", [x, n.op("Reshape", [w, shape], special_zero=False)], **attrs)


def _constant_shape(w: Port) -> tuple[int, ...]:
    return np.shape(w.node.value)


@tf_op("DepthwiseConv2dNative")
def depthwise_conv(n: TfNode):
    spatial = tf_data_format_spatial(n.data_format())
    dilations = list(n.attr("dilations", [1] * 4))
    attrs = {**_window(n, 4), "dilations": [dilations[i] for i in spatial]}
    # [kh, kw, C, M] -> [C, M, 1, kh, kw]
    w = n.folded("Unsqueeze", [permuted(n, n.input(1), [2, 3, 0, 1]), np.array([2], np.int64)])
    return [_around(n, n.input(0), 4, lambda x: n.op("GroupConvolution", [x, w], **attrs))]


@tf_op("Conv2DBackpropInput")
def conv_backprop_input(n: TfNode):
    """input_sizes (NHWC/NCHW full shape), filter [kh, kw, out, in], out_backprop."""
    rank = 4
    spatial = tf_data_format_spatial(n.data_format())
    dilations = list(n.attr("dilations", [1] * rank))
    attrs = {**_window(n, rank), "dilations": [dilations[i] for i in spatial]}
    # input_sizes is computed (Keras Conv2DTranspose: from tf.shape(x)) or a constant
    out_shape = n.folded("Gather", [n.input(0), np.array(spatial, np.int64),
                                    np.array(0, np.int64)], batch_dims=0)
    w = permuted(n, n.input(1), [3, 2, 0, 1])
    if attrs["auto_pad"] == "same_upper":
        # with output_shape given, OpenVINO's same_lower puts the odd padding where TF does
        attrs["auto_pad"] = "same_lower"
    return [_around(n, n.input(2), rank, lambda x: n.op(
        "ConvolutionBackpropData", [x, w, out_shape], output_padding=[0, 0], **attrs))]


def _pool(n: TfNode, kind: str, ksize=None, strides=None, **extra) -> Port:
    """ksize and strides: the attributes' values, unless given (MaxPoolV2's inputs)."""
    rank = 5 if n.op_type.endswith("3D") else 4
    spatial = tf_data_format_spatial(n.data_format())
    ksize = list(n.attr("ksize") if ksize is None else ksize)
    window = _window(n, rank)
    if strides is not None:
        window["strides"] = [int(strides[i]) for i in spatial]
    attrs = {**window, "kernel": [int(ksize[i]) for i in spatial], "rounding_type": "floor",
             **extra}
    return _around(n, n.input(0), rank, lambda x: n.op(kind, [x], **attrs))


@tf_op("MaxPool", "MaxPool3D", "MaxPoolV2")
def max_pool(n: TfNode):
    nsp = 3 if n.op_type.endswith("3D") else 2
    window = {}
    if n.op_type == "MaxPoolV2":  # ksize and strides as inputs 1 and 2
        window = {"ksize": n.const_value(1), "strides": n.const_value(2)}
        if any(v is None for v in window.values()):
            n.reject("ksize and strides (inputs 1 and 2) must be constants",
                     "freeze the graph so that they are Consts")
    return [_pool(n, "MaxPool", **window, dilations=[1] * nsp,
                  index_element_type=np.dtype(np.int64), axis=0)]


@tf_op("AvgPool", "AvgPool3D")
def avg_pool(n: TfNode):
    # TF averages over the window's valid elements only
    return [_pool(n, "AvgPool", **{"exclude-pad": True})]


@tf_op("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def fused_batch_norm(n: TfNode):
    eps = float(n.attr("epsilon", 1e-4))
    if n.attr("is_training", False):
        return [_batch_statistics_norm(n, eps)] + [None] * 5
    values = [n.const_value(i) for i in (1, 2, 3, 4)]
    if channels_last(n) and all(v is not None and v.ndim == 1 for v in values):
        # x * scale + shift on the last axis, as ovc writes it: no layout Transposes
        gamma, beta, mean, var = (np.asarray(v, np.float32) for v in values)
        scale = gamma / np.sqrt(var + np.float32(eps))
        scaled = n.op("Multiply", [n.input(0), n.const(scale)])
        return [n.op("Add", [scaled, n.const(beta - mean * scale)])] + [None] * 5
    params = [n.input(i) for i in (1, 2, 3, 4)]
    y = _around(n, n.input(0), 4, lambda x: n.op("BatchNormInference", [x, *params], epsilon=eps))
    return [y] + [None] * 5


def _batch_statistics_norm(n: TfNode, eps: float) -> Port:
    """Training mode: normalized by the batch's own mean and (biased) variance over all but
    the channel axis, then scaled and shifted, as TF computes it (ovc's MVN); the mean and
    variance inputs are not read."""
    last = channels_last(n)
    axes = n.const([0, 1, 2] if last else [0, 2, 3], np.int64)
    y = n.op("MVN", [n.input(0), axes], eps=eps, eps_mode="inside_sqrt", normalize_variance=True)
    gamma, beta = n.input(1), n.input(2)
    if not last:
        spatial = np.array([1, 2], np.int64)
        gamma, beta = (n.folded("Unsqueeze", [p, spatial]) for p in (gamma, beta))
    return n.op("Add", [n.op("Multiply", [y, gamma]), beta])


@tf_op("BiasAdd", "BiasAddV1")
def bias_add(n: TfNode):
    bias = n.input(1)
    if not channels_last(n):
        bias = n.folded("Unsqueeze", [bias, np.array([1, 2], np.int64)])
    return [n.op("Add", [n.input(0), bias])]


@tf_op("MatMul")
def matmul(n: TfNode):
    return [n.op("MatMul", [n.input(0), n.input(1)], transpose_a=bool(n.attr("transpose_a", False)),
                 transpose_b=bool(n.attr("transpose_b", False)))]


@tf_op("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def batch_matmul(n: TfNode):
    return [n.op("MatMul", [n.input(0), n.input(1)], transpose_a=bool(n.attr("adj_x", False)),
                 transpose_b=bool(n.attr("adj_y", False)))]


@tf_op("Softmax")
def softmax(n: TfNode):
    return [n.op("Softmax", [n.input(0)], axis=-1)]


@tf_op("LogSoftmax")
def log_softmax(n: TfNode):
    return [n.op("LogSoftmax", [n.input(0)], axis=-1)]


@tf_op("LRN")
def lrn(n: TfNode):
    """TF LRN (NHWC, over channels): depth_radius r -> size 2r+1; alpha is per element."""
    radius = int(n.attr("depth_radius", 5))
    size = 2 * radius + 1
    attrs = {"alpha": float(n.attr("alpha", 1.0)) * size, "beta": float(n.attr("beta", 0.5)),
             "bias": float(n.attr("bias", 1.0)), "size": size}
    return [_around(n, n.input(0), 4, lambda x: n.op("LRN", [x, n.const([1], np.int64)], **attrs))]


@tf_op("Einsum")
def einsum(n: TfNode):
    return [n.op("Einsum", [n.input(i) for i in range(n.num_inputs)],
                 equation=n.attr("equation").replace(" ", ""))]
