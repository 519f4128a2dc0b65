"""ONNX translators for the nn op family: convolution, pooling, Gemm/MatMul, normalization,
softmax, resize and depth/space shuffles."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.onnx.ops._dilated_pool import dilated_average_pool, dilated_window_sum
from converter.front.onnx.ops._window_checks import AUTO_PAD, check_window
from converter.front.onnx.ops.reduce import axes_from
from converter.front.onnx.ops.resample import needs_matrices, resample
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

# -- helpers ----------------------------------------------------------------------------------

def _spatial_rank(n: OnnxNode, weights: int | None = None) -> int:
    for key in ("kernel_shape", "strides", "dilations"):
        if n.has_attr(key):
            return len(n.attr(key))
    if n.has_attr("pads"):
        return len(n.attr("pads")) // 2
    for i in (weights, 0):
        rank = None if i is None else n.static_rank(i)
        if rank is not None:
            return rank - 2
    n.reject("cannot tell the number of spatial axes",
             "give the model's inputs a shape (--input_shape)")


def _window_attrs(n: OnnxNode, nsp: int, weights: int | None = None) -> dict:
    """strides, pads and auto_pad, once the attributes fit the input and the weights (input
    `weights`)."""
    check_window(n, nsp, weights)
    pads = list(n.attr("pads", [0] * 2 * nsp))
    return {
        "strides": list(n.attr("strides", [1] * nsp)),
        "pads_begin": pads[:nsp],
        "pads_end": pads[nsp:],
        "auto_pad": AUTO_PAD[n.attr("auto_pad", "NOTSET")],
    }


def _reshape(n: OnnxNode, port: Port, shape: list[int]) -> Port:
    return n.folded("Reshape", [port, np.array(shape, np.int64)], special_zero=False)


def _channel_bias(n: OnnxNode, y: Port, i: int, nsp: int) -> Port:
    if not n.has_input(i):
        return y
    return n.op("Add", [y, _reshape(n, n.input(i), [1, -1] + [1] * nsp)])


def _flat_apply(n: OnnxNode, x: Port, axis: int, build) -> Port:
    """Flatten x's axes from `axis` into one, apply build(flat, axis), restore the shape."""
    flat = n.op("Reshape", [x, n.const([0] * axis + [-1], np.int64)], special_zero=True)
    shape = n.op("ShapeOf", [x], output_type=np.dtype(np.int64))
    return n.op("Reshape", [build(flat, axis), shape], special_zero=False)


# -- convolution ----------------------------------------------------------------------------------
def convolution(n: OnnxNode, x: Port, w: Port, weights: int = 1,
                name: str | None = None) -> Port:
    """ONNX Conv's convolution of x by w under n's attributes (no bias); weights: w's input."""
    nsp = _spatial_rank(n, weights)
    attrs = {**_window_attrs(n, nsp, weights),
             "dilations": list(n.attr("dilations", [1] * nsp))}
    group = n.attr("group", 1)
    if group == 1:
        return n.op("Convolution", [x, w], name, **attrs)
    return n.op("GroupConvolution", [x, n.grouped_weights(w, group, nsp + 2)], name, **attrs)


@onnx_op("Conv")
def conv(n: OnnxNode):
    # named as ovc and MO (DecomposeBias) name a convolution whose bias became an Add
    name = f"{n.name}/WithoutBiases" if n.has_input(2) else None
    y = convolution(n, n.input(0), n.input(1), name=name)
    y.node["mo_op"] = "Conv" if y.node.soft_get("type") == "Convolution" else None  # MO's op
    y_biased = _channel_bias(n, y, 2, _spatial_rank(n, 1))
    return [mo_front.convolution(y_biased, y, "Conv", bias_port=True)]


@onnx_op("ConvTranspose")
def conv_transpose(n: OnnxNode):
    nsp = _spatial_rank(n, 1)
    attrs = {**_window_attrs(n, nsp, 1), "dilations": list(n.attr("dilations", [1] * nsp)),
             "output_padding": list(n.attr("output_padding", [0] * nsp))}
    inputs = [n.input(0), n.input(1)]
    group = n.attr("group", 1)
    if group != 1:
        inputs[1] = n.grouped_weights(inputs[1], group, nsp + 2)
    if n.has_attr("output_shape"):
        inputs.append(n.const(list(n.attr("output_shape"))[-nsp:], np.int64))
    elif attrs["auto_pad"] in ("same_upper", "same_lower"):
        # ONNX: output = input * stride; OpenVINO takes that as an explicit output_shape
        dims = n.op("Gather", [n.op("ShapeOf", [n.input(0)], output_type=np.dtype(np.int64)),
                               n.const(np.arange(2, 2 + nsp), np.int64), n.const(0, np.int64)])
        inputs.append(n.op("Multiply", [dims, n.const(attrs["strides"], np.int64)]))
    if len(inputs) > 2:
        # ONNX SAME_UPPER puts the smaller half of an odd padding first: OpenVINO's same_lower
        attrs["auto_pad"] = "same_lower" if attrs["auto_pad"] == "same_upper" else "same_upper"
    kind = "ConvolutionBackpropData" if group == 1 else "GroupConvolutionBackpropData"
    mo_op = "Deconv2D" if group == 1 else None  # MO's op (a group one differs in weights)
    product = n.op(kind, inputs, **attrs, mo_op=mo_op)
    y = _channel_bias(n, product, 2, nsp)
    return [mo_front.convolution(y, product, "Deconv2D", "Deconvolution") if group == 1 else y]


# -- pooling ------------------------------------------------------------------------------------
def _pool_attrs(n: OnnxNode) -> dict:
    if not n.has_attr("kernel_shape"):
        n.reject("attribute kernel_shape is missing", "give the node its kernel_shape")
    kernel = list(n.attr("kernel_shape"))
    rounding = "ceil_torch" if n.attr("ceil_mode", 0) else "floor"
    return {**_window_attrs(n, len(kernel)), "kernel": kernel, "rounding_type": rounding}


@onnx_op("MaxPool")
def max_pool(n: OnnxNode):
    column_major = n.attr("storage_order", 0) and n.num_outputs > 1
    if column_major and n.static_rank(0) != 4:
        n.reject("storage_order=1 indices of a pooling that is not 2-D",
                 "export the model with storage_order=0, or without the Indices output")
    attrs = _pool_attrs(n)
    node = n.op_node("MaxPool", [n.input(0)], dilations=list(
        n.attr("dilations", [1] * len(attrs["kernel"]))), index_element_type=np.dtype(np.int64),
        axis=0, **attrs)
    indices = node.out_port(1)
    if column_major:  # row-major h * W + w within each plane becomes w * H + h
        shape = n.op("ShapeOf", [n.input(0)], output_type=np.dtype(np.int64))
        height, width = (n.op("Gather", [shape, np.int64(a), np.int64(0)]) for a in (2, 3))
        within = n.op("FloorMod", [indices, n.op("Multiply", [height, width])])
        moved = n.op("Add", [n.op("Multiply", [n.op("FloorMod", [within, width]), height]),
                             n.op("Divide", [within, width])])
        indices = n.op("Add", [n.op("Subtract", [indices, within]), moved])
    return [node.out_port(0), indices][: n.num_outputs]


@onnx_op("AveragePool")
def average_pool(n: OnnxNode):
    attrs = _pool_attrs(n)
    dilations = list(n.attr("dilations", [1] * len(attrs["kernel"])))
    if any(d != 1 for d in dilations):
        return [dilated_average_pool(n, attrs, dilations, bool(n.attr("count_include_pad", 0)))]
    return [n.op("AvgPool", [n.input(0)], **{"exclude-pad": not n.attr("count_include_pad", 0)},
                 mo_op="AveragePool", **attrs)]  # (MO's op name)


@onnx_op("LpPool")
def lp_pool(n: OnnxNode):
    attrs = _pool_attrs(n)
    dilations = list(n.attr("dilations", [1] * len(attrs["kernel"])))
    p = float(n.attr("p", 2))
    powered = n.op("Power", [n.op("Abs", [n.input(0)]), n.const(p, np.float32)])
    if any(d != 1 for d in dilations):
        total = dilated_window_sum(n, powered, attrs, dilations)
    else:
        mean = n.op("AvgPool", [powered], **{"exclude-pad": False}, **attrs)
        total = n.op("Multiply", [mean, n.const(float(np.prod(attrs["kernel"])), np.float32)])
    return [n.op("Power", [total, n.const(1.0 / p, np.float32)])]


# -- matrix products ------------------------------------------------------------------------------
@onnx_op("MatMul")
def matmul(n: OnnxNode):
    return [n.op("MatMul", [n.input(0), n.input(1)])]


@onnx_op("Gemm")
def gemm(n: OnnxNode):
    y = n.op("MatMul", [n.input(0), n.input(1)], transpose_a=bool(n.attr("transA", 0)),
             transpose_b=bool(n.attr("transB", 0)))
    alpha, beta = float(n.attr("alpha", 1.0)), float(n.attr("beta", 1.0))
    if alpha != 1.0:
        y = n.op("Multiply", [y, n.const(alpha, np.float32)])
    if n.has_input(2) and beta != 0.0:
        c = n.input(2)
        if beta != 1.0:
            c = n.op("Multiply", [c, n.const(beta, np.float32)])
        y = n.op("Add", [y, c])
        if alpha == 1.0 == beta:  # MO's one Gemm node, to legacy passes
            y.node[mo_front.MO_FRONT] = mo_front.gemm(
                alpha=alpha, beta=beta, transpose_a=int(n.attr("transA", 0)),
                transpose_b=int(n.attr("transB", 0)))
    return [y]


# -- normalization --------------------------------------------------------------------------------
@onnx_op("BatchNormalization")
def batch_norm(n: OnnxNode):
    """Inference, or training_mode=1: normalized by the batch's own mean and (population)
    variance per channel, the running statistics moved toward them by 1 - momentum."""
    inputs = [n.input(i) for i in range(5)]
    eps = float(n.attr("epsilon", 1e-5))
    if not n.attr("training_mode", 0):
        return [n.op("BatchNormInference", inputs, epsilon=eps)]
    rank = n.static_rank(0)
    if rank is None:
        n.reject("trains on an input of unknown rank", "give the input a static rank")
    x, axes = inputs[0], np.array([0, *range(2, rank)], np.int64)
    mean = n.op("ReduceMean", [x, axes], keep_dims=True)
    centred = n.op("Subtract", [x, mean])
    variance = n.op("ReduceMean", [n.op("Multiply", [centred, centred]), axes], keep_dims=False)
    mean = n.op("ReduceMean", [x, axes], keep_dims=False)
    y = n.op("BatchNormInference", [*inputs[:3], mean, variance], epsilon=eps)
    momentum = n.op("ConvertLike", [np.float32(n.attr("momentum", 0.9)), x])
    rest = n.op("ConvertLike", [np.float32(1 - n.attr("momentum", 0.9)), x])
    running = [n.op("Add", [n.op("Multiply", [old, momentum]), n.op("Multiply", [new, rest])])
               for old, new in ((inputs[3], mean), (inputs[4], variance))]
    return [y, *running]


def _mvn(n: OnnxNode, x: Port, axes: Port, eps: float, normalize_variance: bool = True) -> Port:
    return n.op("MVN", [x, axes], eps=eps, eps_mode="inside_sqrt",
                normalize_variance=normalize_variance)


@onnx_op("InstanceNormalization")
def instance_norm(n: OnnxNode):
    """MVN over the spatial axes, then scale and bias per channel, as ovc writes it (the axes
    and the per-channel shape fold to constants when x's rank is known)."""
    eps = float(n.attr("epsilon", 1e-5))
    y = _mvn(n, n.input(0), axes_from(n, 0, 2), eps)
    rank = n.static_rank(0)
    if rank is not None:
        after_channel = n.const(np.arange(1, rank - 1), np.int64)
    else:  # [1, rank - 1)
        rank_port = n.op("Squeeze", [n.op("ShapeOf", [n.op("ShapeOf", [n.input(0)])],
                                          output_type=np.dtype(np.int64)),
                                     n.const([0], np.int64)])
        last = n.op("Subtract", [rank_port, n.const(1, np.int64)])
        after_channel = n.op("Range", [n.const(1, np.int64), last, n.const(1, np.int64)],
                             output_type=np.dtype(np.int64))
    scale, bias = (n.op("Unsqueeze", [n.input(i), after_channel]) for i in (1, 2))
    return [n.op("Add", [n.op("Multiply", [y, scale]), bias])]


@onnx_op("MeanVarianceNormalization")
def mean_variance_norm(n: OnnxNode):
    axes = n.const(list(n.attr("axes", [0, 2, 3])), np.int64)
    y = _mvn(n, n.input(0), axes, 1e-9)  # (MO's MVNOnnx, to legacy passes before FrontStart)
    y.node[mo_front.MO_FRONT] = mo_front.extracted(
        "MVNOnnx", None, 1, axes=np.asarray(n.attr("axes", [0, 2, 3]), np.int64), eps=1e-9,
        normalize_variance=1, eps_mode="outside_sqrt")
    return [y]


@onnx_op("LayerNormalization")
def layer_norm(n: OnnxNode):
    eps = float(n.attr("epsilon", 1e-5))
    x, axis = n.input(0), int(n.attr("axis", -1))
    rank = n.static_rank(0)
    if axis >= 0 and rank is not None:
        axis -= rank
    axes = axes_from(n, 0, axis)
    y = _mvn(n, x, axes, eps)
    y = n.op("Multiply", [y, n.input(1)])
    if n.has_input(2):
        y = n.op("Add", [y, n.input(2)])
    if n.num_outputs == 1:
        return [y]
    mean = n.op("ReduceMean", [x, axes], keep_dims=True)
    centered = n.op("Subtract", [x, mean])
    var = n.op("ReduceMean", [n.op("Multiply", [centered, centered]), axes], keep_dims=True)
    std = n.op("Sqrt", [n.op("Add", [var, n.const(eps, np.float32)])])
    return [y, mean, n.op("Divide", [n.const(1.0, np.float32), std])]


@onnx_op("RMSNormalization")
def rms_norm(n: OnnxNode):
    x, axis = n.input(0), int(n.attr("axis", -1))
    rank = n.static_rank(0)
    if axis >= 0 and rank is not None:
        axis -= rank
    square = n.op("Multiply", [x, x])
    mean = n.op("ReduceMean", [square, axes_from(n, 0, axis)], keep_dims=True)
    eps = n.op("ConvertLike", [n.const(float(n.attr("epsilon", 1e-5)), np.float32), x])
    rms = n.op("Sqrt", [n.op("Add", [mean, eps])])
    return [n.op("Multiply", [n.op("Divide", [x, rms]), n.input(1)])]


@onnx_op("GroupNormalization")
def group_norm(n: OnnxNode):
    eps, groups = float(n.attr("epsilon", 1e-5)), int(n.attr("num_groups"))
    if n.opset >= 21:
        inputs = [n.input(i) for i in range(3)]
        return [n.op("GroupNormalization", inputs, num_groups=groups, epsilon=eps)]
    # opset 18: scale and bias hold one value per group
    scale = _reshape(n, n.input(1), [-1, 1])
    bias = _reshape(n, n.input(2), [-1, 1])
    grouped = n.op("Reshape", [n.input(0), n.const([0, groups, -1], np.int64)], special_zero=True)
    y = _mvn(n, grouped, n.const([2], np.int64), eps)
    y = n.op("Add", [n.op("Multiply", [y, scale]), bias])
    shape = n.op("ShapeOf", [n.input(0)], output_type=np.dtype(np.int64))
    return [n.op("Reshape", [y, shape], special_zero=False)]


@onnx_op("LRN")
def lrn(n: OnnxNode):
    alpha, beta = float(n.attr("alpha", 1e-4)), float(n.attr("beta", 0.75))
    bias, size = float(n.attr("bias", 1.0)), int(n.attr("size"))
    return [n.op("LRN", [n.input(0), n.const([1], np.int64)], alpha=alpha, beta=beta, bias=bias,
                 size=size, mo_front=mo_front.attributed_lrn(alpha, beta, bias, size))]


@onnx_op("LpNormalization")
def lp_normalization(n: OnnxNode):
    axes = n.const([int(n.attr("axis", -1))], np.int64)
    p = int(n.attr("p", 2))
    if p == 2:
        return [n.op("NormalizeL2", [n.input(0), axes], eps=1e-30, eps_mode="max")]
    norm = n.op("ReduceL1", [n.input(0), axes], keep_dims=True)
    return [n.op("Divide", [n.input(0), norm])]


# -- softmax family -------------------------------------------------------------------------------
def _softmax_like(kind: str, mo_op: str):
    def translate(n: OnnxNode):
        # MO's ONNX extractor read every opset's axis as opset 1's (default 1), into mo_op
        mo = {"mo_front": mo_front.extracted(mo_op, None, 1, until="FrontFinish",
                                             axis=int(n.attr("axis", 1)))}
        if n.opset >= 13:
            return [n.op(kind, [n.input(0)], axis=int(n.attr("axis", -1)),
                         **(mo if n.has_attr("axis") else {}))]
        axis, rank = int(n.attr("axis", 1)), n.static_rank(0)
        if axis < 0 and rank is not None:
            axis += rank
        if axis == -1 or (rank is not None and axis == rank - 1):  # (the flat form's own)
            return [n.op(kind, [n.input(0)], axis=axis, **mo)]
        return [_flat_apply(n, n.input(0), axis, lambda flat, a: n.op(kind, [flat], axis=a))]

    return translate


onnx_op("Softmax")(_softmax_like("Softmax", "SoftMaxONNX"))
onnx_op("LogSoftmax")(_softmax_like("LogSoftmax", "LogSoftmaxONNX"))


@onnx_op("Hardmax", since=13)
def hardmax(n: OnnxNode):
    """1 at the first maximum along axis, 0 elsewhere."""
    x, axis = n.input(0), np.array(int(n.attr("axis", -1)), np.int64)
    top = n.op("Equal", [x, n.op("ReduceMax", [x, axis], keep_dims=True)])
    count = n.op("CumSum", [n.op("Convert", [top], destination_type=np.dtype(np.int32)), axis])
    first = n.op("LogicalAnd", [top, n.op("Equal", [count, n.const(1, np.int32)])])
    return [n.op("ConvertLike", [first, x])]


# -- resize and depth/space shuffles --------------------------------------------------------------
_RESIZE_MODE = {"nearest": "nearest", "linear": "linear_onnx", "bilinear": "linear_onnx",
                "cubic": "cubic"}


def _interpolate(n: OnnxNode, x: Port, scales: Port | None, sizes: Port | None, **attrs) -> Port:
    inputs = [x, sizes if sizes is not None else scales]
    if n.has_attr("axes"):
        inputs.append(n.const(list(n.attr("axes")), np.int64))
    mode = "sizes" if sizes is not None else "scales"
    return n.op("Interpolate", inputs, shape_calculation_mode=mode, **attrs)


@onnx_op("Resize")
def resize(n: OnnxNode):
    mode = _RESIZE_MODE[n.attr("mode", "nearest")]
    if n.opset < 11:
        mo = mo_front.extracted("ONNXResize10", None, 2, until="FrontFinish",
                                mode=n.attr("mode", "nearest"))
        return [_interpolate(n, n.input(0), n.input(1), None, mode=mode, nearest_mode="floor",
                             coordinate_transformation_mode="asymmetric", mo_front=mo)]
    transform = n.attr("coordinate_transformation_mode", "half_pixel")
    sizes = n.input(3) if n.has_input(3) else None
    if needs_matrices(n, transform, sizes is not None):
        return [resample(n, n.attr("mode", "nearest"), transform)]
    return [_interpolate(n, n.input(0), n.input(2), sizes, mode=mode,
                         coordinate_transformation_mode=transform,
                         nearest_mode=n.attr("nearest_mode", "round_prefer_floor"),
                         antialias=bool(n.attr("antialias", 0)),
                         cube_coeff=float(n.attr("cubic_coeff_a", -0.75)))]


@onnx_op("Upsample")
def upsample(n: OnnxNode):
    scales = n.const(list(n.attr("scales")), np.float32) if n.has_attr("scales") else n.input(1)
    return [_interpolate(n, n.input(0), scales, None, mode=_RESIZE_MODE[n.attr("mode", "nearest")],
                         nearest_mode="floor", coordinate_transformation_mode="asymmetric")]


@onnx_op("DepthToSpace")
def depth_to_space(n: OnnxNode):
    mode = "depth_first" if n.attr("mode", "DCR") == "CRD" else "blocks_first"
    return [n.op("DepthToSpace", [n.input(0)], block_size=int(n.attr("blocksize")), mode=mode)]


@onnx_op("SpaceToDepth")
def space_to_depth(n: OnnxNode):
    mode = "depth_first" if n.attr("mode", "DCR") == "CRD" else "blocks_first"
    return [n.op("SpaceToDepth", [n.input(0)], block_size=int(n.attr("blocksize")), mode=mode)]

