"""Built-in translators of Caffe layers onto opset ops, one function per layer type."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.caffe.translator import CaffeNode, caffe_op
from converter.front.translator import static_rank
from converter.graph.port import Port

I64 = np.int64
_BIG = np.iinfo(np.int64).max


# -- helpers ------------------------------------------------------------------------------------
def _spatial(n: CaffeNode, name: str, default: int | None, nsp: int) -> list[int]:
    """kernel_size/stride/pad/dilation: one value for all axes, one per axis, or name_h/name_w."""
    if n.has_attr(f"{name}_h") or n.has_attr(f"{name}_w"):
        return [int(n.attr(f"{name}_h")), int(n.attr(f"{name}_w"))]
    value = n.attr(name, None) if n.has_attr(name) else None
    values = ([] if value is None else list(value) if isinstance(value, list) else [value])
    if not values:
        if default is None:
            n.reject(f"{name} is not given")
        return [default] * nsp
    return [int(v) for v in values] * nsp if len(values) == 1 else [int(v) for v in values]



def _rank(n: CaffeNode, x: Port) -> Port:
    shape = n.op("ShapeOf", [x], output_type=np.dtype(I64))
    rank = n.op("ShapeOf", [shape], output_type=np.dtype(I64))
    return n.op("Squeeze", [rank, n.const([0], I64)])


def _along(n: CaffeNode, value: np.ndarray, x: Port, axis: int, rank: int | None = None) -> Port:
    """A per-axis parameter (shape covering x's axes from `axis`) shaped to broadcast against x
    (of `rank`, when the caller knows it)."""
    rank = static_rank(x) if rank is None else rank
    if axis < 0:
        if rank is None:
            n.reject(f"a negative axis ({axis}) needs a known input rank")
        axis += rank
    value = np.asarray(value, dtype=np.float32)
    lead = value.reshape((1,) * axis + value.shape)
    if rank is not None:
        return n.const(lead.reshape(lead.shape + (1,) * (rank - lead.ndim)))
    axes = n.op("Range", [n.const(lead.ndim, I64), _rank(n, x), n.const(1, I64)],
                output_type=np.dtype(I64))
    return n.op("Unsqueeze", [n.const(lead), axes])


def _shape_part(n: CaffeNode, shape: Port, start: int, stop: int) -> Port:
    return n.op("Slice", [shape, n.const([start], I64), n.const([stop], I64), n.const([1], I64),
                          n.const([0], I64)])


def _enum(n: CaffeNode, name: str) -> str:
    return str(n.attr(name))


# -- convolution and pooling -------------------------------------------------------------------
def _conv_attrs(n: CaffeNode, nsp: int) -> dict:
    pads = _spatial(n, "pad", 0, nsp)
    return {"strides": _spatial(n, "stride", 1, nsp), "pads_begin": pads, "pads_end": pads,
            "dilations": _spatial(n, "dilation", 1, nsp), "auto_pad": "explicit"}


def _bias(n: CaffeNode, y: Port, index: int, rank: int) -> Port:
    """y (of rank `rank`) plus the per-channel bias blob, if the layer has one."""
    if not n.attr("bias_term") or n.num_blobs <= index:
        return y
    return n.op("Add", [y, _along(n, n.blob(index).ravel(), y, 1, rank)])


@caffe_op("Convolution")
def convolution(n: CaffeNode):
    w = n.blob(0)
    nsp = w.ndim - 2
    group = int(n.attr("group"))
    attrs = _conv_attrs(n, nsp)
    if group == 1:
        y = n.op("Convolution", [n.input(0), n.const(w)], **attrs)
    else:
        y = n.op("GroupConvolution", [n.input(0), n.grouped_weights(n.const(w), group, w.ndim)],
                 **attrs)
    return [mo_front.convolution(_bias(n, y, 1, w.ndim), y, "Conv2D")]


@caffe_op("Deconvolution")
def deconvolution(n: CaffeNode):
    w = n.blob(0)  # [C_in, C_out / group, k...]
    nsp = w.ndim - 2
    group = int(n.attr("group"))
    attrs = {**_conv_attrs(n, nsp), "output_padding": [0] * nsp}
    if group == 1:
        y = n.op("ConvolutionBackpropData", [n.input(0), n.const(w)], **attrs)
    else:
        grouped = n.grouped_weights(n.const(w), group, w.ndim)
        y = n.op("GroupConvolutionBackpropData", [n.input(0), grouped], **attrs)
    return [mo_front.convolution(_bias(n, y, 1, w.ndim), y, "Deconv2D", "Deconvolution")]


@caffe_op("Pooling")
def pooling(n: CaffeNode):
    method = _enum(n, "pool")
    if method not in ("MAX", "AVE"):
        n.reject(f"{method} pooling is not supported (MAX and AVE are)")
    x = n.input(0)
    if n.attr("global_pooling"):
        kind = "ReduceMax" if method == "MAX" else "ReduceMean"
        y = n.op(kind, [x, n.const([2, 3], I64)], keep_dims=True)
        y.node[mo_front.MO_FRONT] = mo_front.global_pool(  # (MO's form, to legacy passes)
            "Pooling", "max" if method == "MAX" else "avg")
        return [y]
    pads = _spatial(n, "pad", 0, 2)
    attrs = {"kernel": _spatial(n, "kernel_size", None, 2), "strides": _spatial(n, "stride", 1, 2),
             "pads_begin": pads, "pads_end": pads, "auto_pad": "explicit"}
    if n.has_attr("round_mode") and _enum(n, "round_mode") == "FLOOR":
        attrs["rounding_type"] = "floor"
    else:
        # Caffe rounds up, then drops a last window that would start in the padding: PyTorch's rule
        attrs["rounding_type"] = "ceil_torch" if any(pads) else "ceil"
    if method == "MAX":  # (MO's op name: Pooling)
        return [n.op("MaxPool", [x], dilations=[1, 1], mo_op="Pooling", **attrs)]
    return [n.op("AvgPool", [x], **{"exclude-pad": False}, mo_op="Pooling", **attrs)]


@caffe_op("InnerProduct")
def inner_product(n: CaffeNode):
    axis = int(n.attr("axis"))
    x = n.input(0)
    if axis >= 0:
        flat = n.op("Reshape", [x, n.const([0] * axis + [-1], I64)], special_zero=True)
    else:
        shape = n.op("ShapeOf", [x], output_type=np.dtype(I64))
        head = _shape_part(n, shape, 0, axis)
        flat = n.op("Reshape", [x, n.op("Concat", [head, n.const([-1], I64)], axis=0)])
    w = n.blob(0)
    outputs = int(n.attr("num_output"))
    transpose = bool(n.attr("transpose"))
    w = w.reshape(-1, outputs) if transpose else w.reshape(outputs, -1)
    product = y = n.op("MatMul", [flat, n.const(w)], transpose_b=not transpose)
    if n.attr("bias_term") and n.num_blobs > 1:
        y = n.op("Add", [y, n.const(n.blob(1).ravel())])
    mo_front.affine(y, product)
    return [y]


# -- normalization ------------------------------------------------------------------------------
@caffe_op("BatchNorm")
def batch_norm(n: CaffeNode):
    """Caffe keeps mean and variance scaled by the factor in the third blob."""
    mean, var = n.blob(0).ravel(), n.blob(1).ravel()
    factor = float(n.blob(2).ravel()[0]) if n.num_blobs > 2 else 1.0
    factor = 0.0 if factor == 0 else 1.0 / factor
    ones = np.ones_like(mean)
    y = n.op("BatchNormInference", [n.input(0), n.const(ones), n.const(np.zeros_like(mean)),
                                    n.const(mean * factor), n.const(var * factor)],
             epsilon=float(n.attr("eps")))
    return [y]


@caffe_op("Scale")
def scale(n: CaffeNode):
    """y = x * scale (+ bias); the scale is a blob, or the second bottom."""
    x = n.input(0)
    axis = int(n.attr("axis"))
    if n.num_inputs > 1:
        s = n.input(1)
        if axis != 0 or static_rank(s) is None:
            s = _unsqueeze_input(n, s, x, axis)
        product = y = n.op("Multiply", [x, s])
        index = 0
    else:
        product = y = n.op("Multiply", [x, _along(n, n.blob(0), x, axis)])
        index = 1
    if n.attr("bias_term") and n.num_blobs > index:
        y = n.op("Add", [y, _along(n, n.blob(index), x, axis)])
    return [mo_front.scale_shift(y, product)]


def _unsqueeze_input(n: CaffeNode, s: Port, x: Port, axis: int) -> Port:
    """A second-bottom scale of rank r applied at `axis`: [1]*axis + shape + [1]*rest."""
    s_rank = _rank(n, s)
    shape = n.op("ShapeOf", [s], output_type=np.dtype(I64))
    ones_tail = n.op("Broadcast", [n.const([1], I64), n.op(
        "Reshape", [n.op("Subtract", [n.op("Subtract", [_rank(n, x), n.const(axis, I64)]), s_rank]),
                    n.const([1], I64)])])
    target = n.op("Concat", [n.const([1] * axis, I64), shape, ones_tail], axis=0) if axis else \
        n.op("Concat", [shape, ones_tail], axis=0)
    return n.op("Reshape", [s, target])


@caffe_op("Bias")
def bias(n: CaffeNode):
    x = n.input(0)
    b = n.input(1) if n.num_inputs > 1 else _along(n, n.blob(0), x, int(n.attr("axis")))
    return [n.op("Add", [x, b])]


@caffe_op("LRN")
def lrn(n: CaffeNode):
    size = int(n.attr("local_size"))
    across = _enum(n, "norm_region") == "ACROSS_CHANNELS"
    axes = [1] if across else [2, 3]
    k = float(n.attr("k")) if across else 1.0  # WITHIN_CHANNEL: Caffe always adds 1
    alpha, beta = float(n.attr("alpha")), float(n.attr("beta"))
    mo = mo_front.attributed_lrn(alpha, beta, float(n.attr("k")), size,
                                 "across" if across else "same")
    return [n.op("LRN", [n.input(0), n.const(axes, I64)], alpha=alpha, beta=beta, bias=k,
                 size=size, mo_front=mo)]


@caffe_op("Normalize")
def normalize(n: CaffeNode):
    """SSD's Normalize: L2 over channels (or channels and space), times a learned scale."""
    x = n.input(0)
    if n.attr("across_spatial"):
        rank = static_rank(x)
        axes = n.const(list(range(1, rank)), I64) if rank is not None else n.op(
            "Range", [n.const(1, I64), _rank(n, x), n.const(1, I64)], output_type=np.dtype(I64))
    else:
        axes = n.const([1], I64)
    y = n.op("NormalizeL2", [x, axes], eps=float(n.attr("eps")), eps_mode="add")
    if n.num_blobs:
        s = n.blob(0).ravel()
        factor = n.const(s[:1].reshape(()), np.float32) if s.size == 1 else _along(n, s, x, 1)
        y = n.op("Multiply", [y, factor])
    return [y]


@caffe_op("GRN")
def grn(n: CaffeNode):
    return [n.op("GRN", [n.input(0)], bias=float(n.attr("bias", 1.0)))]


@caffe_op("MVN")
def mvn(n: CaffeNode):
    x = n.input(0)
    rank = static_rank(x)
    first = 1 if n.attr("across_channels") else 2
    axes = n.const(list(range(first, rank)), I64) if rank is not None else n.op(
        "Range", [n.const(first, I64), _rank(n, x), n.const(1, I64)], output_type=np.dtype(I64))
    y = n.op("MVN", [x, axes], normalize_variance=bool(n.attr("normalize_variance")),
             eps=float(n.attr("eps")), eps_mode="outside_sqrt")
    y.node[mo_front.MO_FRONT] = mo_front.extracted(  # (MO's form, to legacy passes)
        "MVNCaffe", None, 1, normalize_variance=int(n.attr("normalize_variance")),
        across_channels=int(n.attr("across_channels")), eps=float(n.attr("eps")))
    return [y]


@caffe_op("Softmax")
def softmax(n: CaffeNode):
    return [n.op("Softmax", [n.input(0)], axis=int(n.attr("axis")))]


# -- element-wise and structure -----------------------------------------------------------------
@caffe_op("Eltwise")
def eltwise(n: CaffeNode):
    operation = _enum(n, "operation")
    inputs = [n.input(i) for i in range(n.num_inputs)]
    if operation == "SUM":
        coeff = [float(c) for c in n.attr("coeff", [])] or [1.0] * len(inputs)
        if len(coeff) != len(inputs):
            n.reject(f"{len(coeff)} coeff values for {len(inputs)} inputs")
        terms = [x if c == 1 else n.op("Multiply", [x, n.const(c, np.float32)])
                 for x, c in zip(inputs, coeff)]
        kind = "Add"
    else:
        terms, kind = inputs, "Multiply" if operation == "PROD" else "Maximum"
    y = terms[0]
    for t in terms[1:]:
        y = n.op(kind, [y, t])
    return [y]


@caffe_op("Axpy")
def axpy(n: CaffeNode):
    """SENet's Axpy: bottom 0 [N, C, 1, 1] scales bottom 1, and bottom 2 is added."""
    if n.num_inputs != 3:
        n.reject(f"{n.num_inputs} bottom(s); Axpy takes the scale, x and y")
    return [n.op("Add", [n.op("Multiply", [n.input(0), n.input(1)]), n.input(2)])]


@caffe_op("Concat")
def concat(n: CaffeNode):
    axis = int(n.attr("axis")) if n.has_attr("axis") or not n.has_attr("concat_dim") else int(
        n.attr("concat_dim"))
    return [n.op("Concat", [n.input(i) for i in range(n.num_inputs)], axis=axis)]


@caffe_op("Slice")
def slice_(n: CaffeNode):
    axis = int(n.attr("axis")) if n.has_attr("axis") or not n.has_attr("slice_dim") else int(
        n.attr("slice_dim"))
    points = [int(p) for p in n.attr("slice_point", [])]
    outputs = n.num_outputs
    if not points:
        node = n.op_node("Split", [n.input(0), n.const(axis, I64)], num_splits=outputs)
    else:
        if len(points) != outputs - 1:
            n.reject(f"{len(points)} slice points for {outputs} tops")
        bounds = [0, *points]
        lengths = [b - a for a, b in zip(bounds, bounds[1:])] + [-1]
        node = n.op_node("VariadicSplit", [n.input(0), n.const(axis, I64), n.const(lengths, I64)])
        node["out_ports_count"] = outputs
    node[mo_front.MO_FRONT] = mo_front.extracted(  # (MO's form, to legacy passes)
        "CaffeSlice", None, 1, axis=axis, slice_point=np.asarray(points, I64))
    return [node.out_port(i) for i in range(outputs)]


@caffe_op("Split")
def split(n: CaffeNode):
    return [n.input(0)] * n.num_outputs


@caffe_op("Flatten")
def flatten(n: CaffeNode):
    axis, end = int(n.attr("axis")), int(n.attr("end_axis"))
    x = n.input(0)
    if end == -1 and axis >= 0:
        y = n.op("Reshape", [x, n.const([0] * axis + [-1], I64)], special_zero=True)
        y.node[mo_front.MO_FRONT] = mo_front.extracted("Flatten", None, 1, axis=axis, end_axis=end)
        return [y]
    shape = n.op("ShapeOf", [x], output_type=np.dtype(I64))
    parts = [_shape_part(n, shape, 0, axis) if axis != 0 else None, n.const([-1], I64),
             _shape_part(n, shape, end + 1, _BIG) if end != -1 else None]
    target = n.op("Concat", [p for p in parts if p is not None], axis=0)
    return [n.op("Reshape", [x, target])]


@caffe_op("Reshape")
def reshape(n: CaffeNode):
    dims = [int(d) for d in n.param.shape.dim]
    axis, num_axes = int(n.attr("axis")), int(n.attr("num_axes"))
    x = n.input(0)
    if axis == 0 and num_axes == -1:
        return [n.op("Reshape", [x, n.const(dims, I64)], special_zero=True)]
    shape = n.op("ShapeOf", [x], output_type=np.dtype(I64))
    start = axis if axis >= 0 else axis + 1  # Caffe: -1 starts after the last axis
    parts: list[Port] = []
    if start != 0:
        parts.append(_shape_part(n, shape, 0, start if start > 0 else start or _BIG))
    for i, d in enumerate(dims):
        if d == 0:
            at = start + i
            parts.append(_shape_part(n, shape, at, at + 1 if at != -1 else _BIG))
        else:
            parts.append(n.const([d], I64))
    if num_axes != -1:
        end = start + num_axes
        if start >= 0 or end < 0:
            parts.append(_shape_part(n, shape, end, _BIG))
    target = n.op("Concat", parts, axis=0) if len(parts) > 1 else parts[0]
    return [n.op("Reshape", [x, target], special_zero=False)]


@caffe_op("Permute")
def permute(n: CaffeNode):
    order = [int(o) for o in n.attr("order", [])]
    rank = static_rank(n.input(0))
    if rank is not None and len(order) < rank:  # Caffe keeps the unnamed axes in order
        order += [i for i in range(rank) if i not in order]
    return [n.op("Transpose", [n.input(0), n.const(order, I64)])]
