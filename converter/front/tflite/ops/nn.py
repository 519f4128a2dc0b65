"""TensorFlow Lite translators for the nn family: convolutions, pooling, fully connected,
batch matmul, softmax. NHWC data goes through converter.front.tf.ops._layout (the NCHW op
between Transposes that the middle phase cancels)."""

from __future__ import annotations

import numpy as np

from converter.front.tf.ops._layout import permuted, to_nchw, to_nhwc
from converter.front.tflite.translator import TfliteNode, tflite_op
from converter.front.tflite.weights import dequantized_const
from converter.graph.port import Port

_PADDING = {0: "same_upper", 1: "valid"}


def _window(n: TfliteNode) -> dict:
    padding = _PADDING.get(n.attr("padding", 0))
    if padding is None:
        n.reject(f"padding {n.attr('padding')} is not SAME or VALID", "export the model again")
    return {"strides": [n.attr("stride_h", 1), n.attr("stride_w", 1)], "auto_pad": padding,
            "pads_begin": [0, 0], "pads_end": [0, 0]}


def _dilations(n: TfliteNode) -> list[int]:
    return [n.attr("dilation_h_factor", 1), n.attr("dilation_w_factor", 1)]


def _biased(n: TfliteNode, y: Port, i: int) -> Port:
    """y + input i (a bias over the last axis) when the operator has one."""
    return y if n.input(i) is None else n.op("Add", [y, n.input(i)])


def _nchw_biased(n: TfliteNode, x: Port, i: int, build) -> Port:
    """build(x) in NCHW plus input i (a bias per channel, when given) there: a quantized bias
    stays integers, which the layout change would fold into a float constant."""
    def biased(x: Port) -> Port:
        y = build(x)
        if n.input(i) is None:
            return y
        column = np.array([-1, 1, 1], np.int64)
        b = _weights(n, i, lambda a: a.reshape(-1, 1, 1),
                     lambda b: n.folded("Reshape", [b, column], special_zero=False))
        return n.op("Add", [y, b])

    return _nchw(n, x, biased)


def _weights(n: TfliteNode, i: int, transform, fallback) -> Port:
    """Input i rearranged: a quantized constant by transform on its integers (they stay
    integers in the IR), anything else by fallback on its port."""
    t = n.tensor(i)
    if t.data is not None and t.quantized:
        return dequantized_const(n.op, t, transform)
    return fallback(n.input(i))


def _nchw(n: TfliteNode, x: Port, build) -> Port:
    return to_nhwc(n, build(to_nchw(n, x, 4)), 4)


@tflite_op("CONV_2D")
def conv(n: TfliteNode):
    attrs = {**_window(n), "dilations": _dilations(n)}
    channels, (out, kh, kw, per_group) = n.tensor(0).shape[-1], n.tensor(1).shape
    groups = channels // per_group if channels > 0 and channels != per_group else 1
    # OHWI -> OIHW; grouped (input channels = groups * I): [G, O/G, I, kh, kw]
    shape = [groups, out // groups] if groups > 1 else [out]
    w = _weights(n, 1, lambda a: a.transpose(0, 3, 1, 2).reshape([*shape, per_group, kh, kw]),
                 lambda w: _grouped(n, permuted(n, w, [0, 3, 1, 2]), groups))
    kind = "GroupConvolution" if groups > 1 else "Convolution"
    return [_nchw_biased(n, n.input(0), 2, lambda x: n.op(kind, [x, w], **attrs))]


def _grouped(n: TfliteNode, w: Port, groups: int) -> Port:
    return n.grouped_weights(w, groups, 4) if groups > 1 else w


@tflite_op("DEPTHWISE_CONV_2D")
def depthwise_conv(n: TfliteNode):
    attrs = {**_window(n), "dilations": _dilations(n)}
    channels = n.tensor(0).shape[-1]
    _, kh, kw, total = n.tensor(1).shape
    if channels <= 0:
        n.reject("the input's channel count is not static", "export with a static shape")
    # [1, kh, kw, C*M] -> [C, M, 1, kh, kw]
    shape = [kh, kw, channels, total // channels, 1]
    w = _weights(n, 1, lambda a: a.reshape(shape).transpose(2, 3, 4, 0, 1),
                 lambda w: permuted(n, n.folded("Reshape", [w, np.array(shape)],
                                                special_zero=False), [2, 3, 4, 0, 1]))
    return [_nchw_biased(n, n.input(0), 2,
                         lambda x: n.op("GroupConvolution", [x, w], **attrs))]


@tflite_op("TRANSPOSE_CONV")
def transpose_conv(n: TfliteNode):
    """Inputs: output shape (NHWC), weights [O, kh, kw, I], data, optional bias."""
    attrs = {**_window(n), "dilations": [1, 1], "output_padding": [0, 0]}
    if attrs["auto_pad"] == "same_upper":
        attrs["auto_pad"] = "same_lower"  # with output_shape given, puts odd padding as TF
    w = _weights(n, 1, lambda a: a.transpose(3, 0, 1, 2),  # -> [I, O, kh, kw]
                 lambda w: permuted(n, w, [3, 0, 1, 2]))
    size = n.folded("Gather", [n.input(0), np.array([1, 2], np.int64), np.array(0, np.int64)],
                    batch_dims=0)
    return [_nchw_biased(n, n.input(2), 3, lambda x: n.op(
        "ConvolutionBackpropData", [x, w, size], **attrs))]


def _pool(n: TfliteNode, kind: str, **extra) -> Port:
    attrs = {**_window(n), "kernel": [n.attr("filter_height", 1), n.attr("filter_width", 1)],
             "rounding_type": "floor", **extra}
    return _nchw(n, n.input(0), lambda x: n.op(kind, [x], **attrs))


@tflite_op("MAX_POOL_2D")
def max_pool(n: TfliteNode):
    return [_pool(n, "MaxPool", dilations=[1, 1], index_element_type=np.dtype(np.int64), axis=0)]


@tflite_op("AVERAGE_POOL_2D")
def avg_pool(n: TfliteNode):
    # TFLite averages over the window's valid elements only
    return [_pool(n, "AvgPool", **{"exclude-pad": True})]


@tflite_op("FULLY_CONNECTED")
def fully_connected(n: TfliteNode):
    """x [..., I] (flattened to [-1, I] unless keep_num_dims) times weights [O, I]^T, + bias."""
    if n.attr("weights_format", 0):
        n.reject("its weights are in a shuffled format", "export the model with default weights")
    x = n.input(0)
    inner = n.tensor(1).shape[-1]
    if not n.attr("keep_num_dims", False) and n.rank(0) != 2:
        x = n.op("Reshape", [x, n.const([-1, inner], np.int64)], special_zero=False)
    y = n.op("MatMul", [x, n.input(1)], transpose_a=False, transpose_b=True)
    return [_biased(n, y, 2)]


@tflite_op("BATCH_MATMUL")
def batch_matmul(n: TfliteNode):
    return [n.op("MatMul", [n.input(0), n.input(1)], transpose_a=bool(n.attr("adj_x", False)),
                 transpose_b=bool(n.attr("adj_y", False)))]


@tflite_op("SOFTMAX")
def softmax(n: TfliteNode):
    x = n.input(0)
    beta = float(n.attr("beta", 1.0))
    if beta != 1.0:
        x = n.op("Multiply", [x, np.float32(beta)])
    return [n.op("Softmax", [x], axis=-1)]


@tflite_op("LOG_SOFTMAX")
def log_softmax(n: TfliteNode):
    return [n.op("LogSoftmax", [n.input(0)], axis=-1)]


@tflite_op("L2_NORMALIZATION")
def l2_normalization(n: TfliteNode):
    return [n.op("NormalizeL2", [n.input(0), n.const([-1], np.int64)], eps=1e-6, eps_mode="max")]
