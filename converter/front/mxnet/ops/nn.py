"""MXNet translators for the nn family: Convolution, Deconvolution, Pooling, FullyConnected,
activations, BatchNorm, LayerNorm, LRN and the softmax variants."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.mxnet.translator import MxnetNode, mxnet_op
from converter.graph.port import Port

# Activation act_type -> opset op
_ACTIVATIONS = {"relu": "ReLU", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "SoftPlus",
                "softsign": "SoftSign", "mish": "Mish"}
_SELU_ALPHA, _SELU_LAMBDA = 1.6732632423543772, 1.0507009873554805


# -- helpers ----------------------------------------------------------------------------------
def _check_layout(n: MxnetNode) -> None:
    layout = n.attrs.str("layout", None)
    if layout not in (None, "None", "NCW", "NCHW", "NCDHW"):
        n.reject(f"layout {layout} is not supported (channels-first only)")


def _window(n: MxnetNode, nsp: int) -> dict:
    pads = list(n.attrs.tuple("pad", int, ()) or (0,) * nsp)
    return {
        "strides": list(n.attrs.tuple("stride", int, ()) or (1,) * nsp),
        "pads_begin": pads, "pads_end": list(pads), "auto_pad": "explicit",
    }


def _kernel(n: MxnetNode) -> list[int]:
    kernel = list(n.attrs.tuple("kernel", int, ()))
    if not kernel:
        n.reject("the 'kernel' attribute is missing")
    return kernel


def _channel_bias(n: MxnetNode, y: Port, i: int, nsp: int) -> Port:
    shape = np.array([1, -1] + [1] * nsp, np.int64)
    return n.op("Add", [y, n.folded("Reshape", [n.input(i), shape], special_zero=False)])


def _flatten2d(n: MxnetNode, x: Port) -> Port:
    return n.op("Reshape", [x, n.const([0, -1], np.int64)], special_zero=True)


# -- convolution ----------------------------------------------------------------------------------
@mxnet_op("Convolution", "Convolution_v1")
def convolution(n: MxnetNode):
    _check_layout(n)
    kernel = _kernel(n)
    nsp = len(kernel)
    attrs = {**_window(n, nsp), "dilations": list(n.attrs.tuple("dilate", int, ()) or (1,) * nsp)}
    group = n.attrs.int("num_group", 1)
    if group == 1:
        y = n.op("Convolution", [n.input(0), n.input(1)], **attrs)
    else:
        y = n.op("GroupConvolution", [n.input(0), n.grouped_weights(n.input(1), group, nsp + 2)],
                 **attrs)
    product = y
    if not n.attrs.bool("no_bias", False) and n.has_input(2):
        y = _channel_bias(n, y, 2, nsp)
    return [mo_front.convolution(y, product, "Convolution")]


@mxnet_op("Deconvolution")
def deconvolution(n: MxnetNode):
    _check_layout(n)
    kernel = _kernel(n)
    nsp = len(kernel)
    if any(n.attrs.tuple("target_shape", int, ())):
        n.reject("target_shape is not supported; give pad and adj instead")
    attrs = {**_window(n, nsp), "dilations": list(n.attrs.tuple("dilate", int, ()) or (1,) * nsp),
             "output_padding": list(n.attrs.tuple("adj", int, ()) or (0,) * nsp)}
    group = n.attrs.int("num_group", 1)
    w = n.input(1)
    if group != 1:
        w = n.grouped_weights(w, group, nsp + 2)
    kind = "ConvolutionBackpropData" if group == 1 else "GroupConvolutionBackpropData"
    y = n.op(kind, [n.input(0), w], **attrs)
    if not n.attrs.bool("no_bias", True) and n.has_input(2):
        y = _channel_bias(n, y, 2, nsp)
    return [y]


# -- pooling ------------------------------------------------------------------------------------
@mxnet_op("Pooling", "Pooling_v1")
def pooling(n: MxnetNode):
    _check_layout(n)
    pool_type = n.attrs.str("pool_type", "max")
    if n.attrs.bool("global_pool", False):
        nsp = len(n.attrs.tuple("kernel", int, ())) or 2
        axes = n.const(np.arange(2, 2 + nsp), np.int64)
        kind = {"max": "ReduceMax", "avg": "ReduceMean", "sum": "ReduceSum"}.get(pool_type)
        if kind is None:
            n.reject(f"global pool_type {pool_type} is not supported")
        return [n.op(kind, [n.input(0), axes], keep_dims=True)]
    kernel = _kernel(n)
    attrs = {**_window(n, len(kernel)), "kernel": kernel}
    convention = n.attrs.str("pooling_convention", "valid")
    if convention == "full":
        attrs["rounding_type"] = "ceil"
    elif convention == "same":
        attrs["auto_pad"] = "same_upper"
    elif convention == "valid":
        attrs["rounding_type"] = "floor"
    else:
        n.reject(f"pooling_convention {convention} is not supported")
    if pool_type == "max":
        node = n.op_node("MaxPool", [n.input(0)], dilations=[1] * len(kernel),
                         index_element_type=np.dtype(np.int64), axis=0, mo_op="Pooling",
                         **attrs)
        return [node.out_port(0)]
    if pool_type in ("avg", "sum"):
        exclude = not n.attrs.bool("count_include_pad", True) and pool_type == "avg"
        y = n.op("AvgPool", [n.input(0)], **{"exclude-pad": exclude}, mo_op="Pooling", **attrs)
        if pool_type == "sum":
            y = n.op("Multiply", [y, n.const(float(np.prod(kernel)), np.float32)])
        return [y]
    n.reject(f"pool_type {pool_type} is not supported")


# -- dense ----------------------------------------------------------------------------------------
@mxnet_op("FullyConnected")
def fully_connected(n: MxnetNode):
    x = n.input(0)
    if n.attrs.bool("flatten", True):
        x = _flatten2d(n, x)
    product = y = n.op("MatMul", [x, n.input(1)], transpose_a=False, transpose_b=True)
    if not n.attrs.bool("no_bias", False) and n.has_input(2):
        y = n.op("Add", [y, n.input(2)])
    return [mo_front.affine(y, product)]


# -- activations ----------------------------------------------------------------------------------
@mxnet_op("Activation")
def activation(n: MxnetNode):
    act = n.attrs.str("act_type", "relu")
    if act == "log_sigmoid":
        return [n.op("Log", [n.op("Sigmoid", [n.input(0)])])]
    if act not in _ACTIVATIONS:
        n.reject(f"act_type {act} is not supported")
    return [n.op(_ACTIVATIONS[act], [n.input(0)])]


@mxnet_op("LeakyReLU")
def leaky_relu(n: MxnetNode):
    act = n.attrs.str("act_type", "leaky")
    x = n.input(0)
    if act == "prelu":
        return [n.op("PReLU", [x, n.input(1)])]
    if act == "elu":
        return [n.op("Elu", [x], alpha=n.attrs.float("slope", 0.25))]
    if act == "selu":
        alpha, lam = n.const([_SELU_ALPHA], np.float32), n.const([_SELU_LAMBDA], np.float32)
        return [n.op("Selu", [x, alpha, lam])]
    if act == "gelu":
        return [n.op("Gelu", [x], approximation_mode="erf")]
    if act == "leaky":
        slope = n.attrs.float("slope", 0.25)
    elif act == "rrelu":  # inference: the mean of the random slope's range
        slope = (n.attrs.float("lower_bound", 0.125) + n.attrs.float("upper_bound", 0.334)) / 2
    else:
        n.reject(f"act_type {act} is not supported")
    return [n.op("PReLU", [x, n.const([slope], np.float32)])]


# -- normalization --------------------------------------------------------------------------------
@mxnet_op("BatchNorm", "BatchNorm_v1", "_contrib_SyncBatchNorm")
def batch_norm(n: MxnetNode):
    if n.attrs.int("axis", 1) != 1:
        n.reject("only axis=1 (channels first) is supported")
    gamma = n.input(1)
    if n.attrs.bool("fix_gamma", True):  # MXNet ignores gamma then: a scale of one
        value = n.const_value(1)
        if value is not None:
            gamma = n.const(np.ones_like(value))
        else:
            gamma = n.op("Add", [n.op("Multiply", [gamma, n.const(0.0, np.float32)]),
                                 n.const(1.0, np.float32)])
    inputs = [n.input(0), gamma, n.input(2), n.input(3), n.input(4)]
    return [n.op("BatchNormInference", inputs, epsilon=n.attrs.float("eps", 1e-3))]


def _along(n: MxnetNode, x: Port, axis: int, p: Port) -> Port:
    """p, of x's size on `axis`, shaped to broadcast along it: unsqueezed to x's rank as MO did
    when the rank is known; else with trailing ones (their count from x's rank at run time
    for an axis counted from the front, which folds when shapes are static)."""
    rank = n.static_rank(0)
    if rank is not None:
        others = [i for i in range(rank) if i != axis % rank]
        return n.op("Unsqueeze", [p, n.const(others, np.int64)]) if others else p
    if axis < 0:
        return n.op("Unsqueeze", [p, n.const(list(range(1, -axis)), np.int64)]) if axis < -1 else p
    rank = n.op("ShapeOf", [n.op("ShapeOf", [x], output_type=np.dtype(np.int64))],
                output_type=np.dtype(np.int64))
    trailing = n.op("Subtract", [rank, n.const([axis + 1], np.int64)])
    ones = n.op("Broadcast", [n.const([1], np.int64), trailing])
    return n.op("Reshape", [p, n.op("Concat", [n.const([-1], np.int64), ones], axis=0)])


@mxnet_op("LayerNorm")
def layer_norm(n: MxnetNode):
    """MVN over `axis`, times gamma plus beta (both of x's size on that axis); output_mean_var
    adds the mean and the standard deviation (kept dims)."""
    axis, eps, x = n.attrs.int("axis", -1), n.attrs.float("eps", 9.99999975e-06), n.input(0)
    axes = n.const([axis], np.int64)
    y = n.op("MVN", [x, axes], eps=eps, eps_mode="inside_sqrt", normalize_variance=True)
    y = n.op("Add", [n.op("Multiply", [y, _along(n, x, axis, n.input(1))]),
                     _along(n, x, axis, n.input(2))])
    if not n.attrs.bool("output_mean_var", False):
        return [y]
    mean = n.op("ReduceMean", [x, axes], keep_dims=True)
    centred = n.op("Subtract", [x, mean])
    variance = n.op("ReduceMean", [n.op("Multiply", [centred, centred]), axes], keep_dims=True)
    return [y, mean, n.op("Sqrt", [n.op("Add", [variance, n.const(eps, np.float32)])])]


@mxnet_op("LRN")
def lrn(n: MxnetNode):
    size = n.attrs.int("nsize")
    if size is None:
        n.reject("the 'nsize' attribute is missing")
    return [n.op("LRN", [n.input(0), n.const([1], np.int64)], alpha=n.attrs.float("alpha", 1e-4),
                 beta=n.attrs.float("beta", 0.75), bias=n.attrs.float("knorm", 2.0), size=size)]


@mxnet_op("L2Normalization")
def l2_normalization(n: MxnetNode):
    mode = n.attrs.str("mode", "instance")
    axes = {"channel": [1], "spatial": [2, 3]}.get(mode)
    x = n.input(0)
    if axes is None:  # instance: over everything but the batch
        flat = _flatten2d(n, x)
        y = n.op("NormalizeL2", [flat, n.const([1], np.int64)], eps=n.attrs.float("eps", 1e-10),
                 eps_mode="add")
        return [n.op("Reshape", [y, n.op("ShapeOf", [x], output_type=np.dtype(np.int64))])]
    return [n.op("NormalizeL2", [x, n.const(axes, np.int64)], eps=n.attrs.float("eps", 1e-10),
                 eps_mode="add")]


# -- softmax ------------------------------------------------------------------------------------
def _softmax(n: MxnetNode, x: Port, axis: int) -> Port:
    return n.op("Softmax", [x], axis=axis)


def _softmax_flat(n: MxnetNode, x: Port) -> Port:
    """Softmax over everything but axis 0, in the input's shape."""
    y = _softmax(n, _flatten2d(n, x), 1)
    return n.op("Reshape", [y, n.op("ShapeOf", [x], output_type=np.dtype(np.int64))])


@mxnet_op("SoftmaxOutput", "Softmax")
def softmax_output(n: MxnetNode):
    # the label input (1) only matters for training; MO drops it as well
    x = n.input(0)
    if n.attrs.bool("multi_output", False):
        return [_softmax(n, x, 1)]
    if n.attrs.bool("preserve_shape", False):
        return [_softmax(n, x, -1)]
    return [_softmax_flat(n, x)]


@mxnet_op("SoftmaxActivation")
def softmax_activation(n: MxnetNode):
    if n.attrs.str("mode", "instance") == "channel":
        return [_softmax(n, n.input(0), 1)]
    return [_softmax_flat(n, n.input(0))]


@mxnet_op("softmax", "log_softmax")
def softmax(n: MxnetNode):
    x = n.input(0)
    temperature = n.attrs.float("temperature", None)
    if temperature not in (None, 1.0):
        x = n.op("Divide", [x, n.const(temperature, np.float32)])
    if n.op_type == "log_softmax":
        return [n.op("LogSoftmax", [x], axis=n.attrs.int("axis", -1))]
    return [_softmax(n, x, n.attrs.int("axis", -1))]


@mxnet_op("LinearRegressionOutput", "MAERegressionOutput")
def regression_output(n: MxnetNode):
    return [n.input(0)]


@mxnet_op("LogisticRegressionOutput")
def logistic_output(n: MxnetNode):
    return [n.op("Sigmoid", [n.input(0)])]


# -- resize ---------------------------------------------------------------------------------------
@mxnet_op("UpSampling")
def upsampling(n: MxnetNode):
    if n.attrs.str("sample_type", "nearest") != "nearest" or (n.attrs.int("num_args", 1) or 1) > 1:
        n.reject("only nearest upsampling of one input is supported")
    scale = float(n.attrs.int("scale", 1))
    return [n.op("Interpolate", [n.input(0), n.const([scale, scale], np.float32),
                                 n.const([2, 3], np.int64)],
                 mode="nearest", shape_calculation_mode="scales",
                 coordinate_transformation_mode="asymmetric", nearest_mode="floor",
                 antialias=False, pads_begin=[0], pads_end=[0], cube_coeff=-0.75)]
