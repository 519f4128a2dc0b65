"""ATen nn ops: convolution, pooling, matrix products, softmax, embedding."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.ops._common import rank_of
from converter.front.pytorch.translator import TorchNode, aten_op
from converter.graph.port import Port


def _per_axis(value, count: int) -> list[int]:
    """An int or int list argument as `count` values (torch repeats a single one)."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    return [int(v) for v in values] * (count if len(values) == 1 else 1)


def _bias(n: TorchNode, y: Port, bias: Port | None, nsp: int) -> Port:
    if bias is None:
        return y
    shape = np.array([1, -1] + [1] * nsp, np.int64)
    return n.op("Add", [y, n.folded("Reshape", [bias, shape], special_zero=False)])


@aten_op("aten::convolution", "aten::_convolution", "aten::conv2d", "aten::conv1d",
         "aten::conv3d")
def convolution(n: TorchNode):
    x, w = n.tensor("input"), n.tensor("weight")
    rank = n.static_rank(1)
    nsp = len(n.value("stride")) if rank is None else rank - 2
    padding = n.value("padding")
    if isinstance(padding, str):
        n.reject_arg("padding", "string paddings are not supported")
    pads = _per_axis(padding, nsp)
    attrs = {"strides": _per_axis(n.value("stride"), nsp), "pads_begin": pads,
             "pads_end": pads, "dilations": _per_axis(n.value("dilation"), nsp)}
    groups = int(n.value("groups", 1))
    if n.value("transposed", False):
        attrs["output_padding"] = _per_axis(n.value("output_padding"), nsp)
        if groups == 1:
            y = n.op("ConvolutionBackpropData", [x, w], **attrs)
        else:
            y = n.op("GroupConvolutionBackpropData", [x, n.grouped_weights(w, groups, nsp + 2)],
                     **attrs)
    elif groups == 1:
        y = n.op("Convolution", [x, w], **attrs)
    else:
        y = n.op("GroupConvolution", [x, n.grouped_weights(w, groups, nsp + 2)], **attrs)
    return [_bias(n, y, n.arg("bias"), nsp)]


def _window(n: TorchNode, nsp: int) -> dict:
    kernel = _per_axis(n.value("kernel_size"), nsp)
    stride = n.value("stride", []) or kernel
    pads = _per_axis(n.value("padding", 0), nsp)
    return {"kernel": kernel, "strides": _per_axis(stride, nsp), "pads_begin": pads,
            "pads_end": pads,
            "rounding_type": "ceil_torch" if n.value("ceil_mode", False) else "floor"}


@aten_op("aten::max_pool2d_with_indices", "aten::max_pool2d", "aten::max_pool1d",
         "aten::max_pool3d", "aten::max_pool3d_with_indices", "aten::max_pool1d_with_indices")
def max_pool(n: TorchNode):
    nsp = int(n.op_type.split("max_pool")[1][0])
    attrs = _window(n, nsp)
    node = n.op_node("MaxPool", [n.tensor(0)], dilations=_per_axis(n.value("dilation", 1), nsp),
                     index_element_type=np.dtype(np.int64), axis=0, **attrs)
    return [node.out_port(0), node.out_port(1)]


@aten_op("aten::avg_pool2d", "aten::avg_pool1d", "aten::avg_pool3d")
def avg_pool(n: TorchNode):
    if n.arg("divisor_override") is not None:
        n.reject_arg("divisor_override", "a divisor override is not supported")
    attrs = _window(n, int(n.op_type[-2]))
    exclude = not n.value("count_include_pad", True)
    return [n.op("AvgPool", [n.tensor(0)], **{"exclude-pad": exclude}, **attrs)]


@aten_op("aten::adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d", "aten::adaptive_avg_pool1d")
def adaptive_avg_pool(n: TorchNode):
    size = n.value("output_size")
    if any(int(s) != 1 for s in _per_axis(size, len(size) if isinstance(size, list) else 1)):
        n.reject_arg("output_size", "only a global pool (output size 1) is supported")
    nsp = 1 if n.op_type.endswith("1d") else 2
    axes = np.arange(-nsp, 0, dtype=np.int64)
    return [n.op("ReduceMean", [n.tensor(0), n.const(axes)], keep_dims=True)]


@aten_op("aten::addmm")
def addmm(n: TorchNode):
    y = n.op("MatMul", [n.tensor("mat1"), n.tensor("mat2")])
    alpha, beta = n.value("alpha", 1), n.value("beta", 1)
    if alpha != 1:
        y = n.op("Multiply", [y, n.op("ConvertLike", [n.const(float(alpha)), y])])
    c = n.tensor("self")
    if beta != 1:
        c = n.op("Multiply", [c, n.op("ConvertLike", [n.const(float(beta)), c])])
    return [n.op("Add", [y, c]) if beta != 0 else y]


@aten_op("aten::mm", "aten::bmm", "aten::matmul")
def matmul(n: TorchNode):
    return [n.op("MatMul", [n.tensor(0), n.tensor(1)])]


@aten_op("aten::linear")
def linear(n: TorchNode):
    y = n.op("MatMul", [n.tensor("input"), n.tensor("weight")], transpose_b=True)
    bias = n.arg("bias")
    return [y if bias is None else n.op("Add", [y, bias])]


@aten_op("aten::_softmax", "aten::softmax", "aten::_log_softmax", "aten::log_softmax")
def softmax(n: TorchNode):
    x = n.tensor(0)
    dtype = n.arg("dtype")
    if isinstance(dtype, np.dtype):
        x = n.op("Convert", [x], destination_type=dtype)
    kind = "LogSoftmax" if "log_softmax" in n.op_type else "Softmax"
    return [n.op(kind, [x], axis=int(n.value("dim")))]


@aten_op("aten::embedding")
def embedding(n: TorchNode):
    return [n.op("Gather", [n.tensor("weight"), n.tensor("indices"), n.const(0, np.int64)])]


@aten_op("aten::linalg_vector_norm", "aten::norm")
def vector_norm(n: TorchNode):
    order = n.value("ord", 2) if "ord" in n.names else n.value("p", 2)
    if float(order) != 2.0:
        n.reject_arg("ord", "only the 2-norm is supported")
    x = n.tensor(0)
    dims = n.arg("dim")
    axes = n.ints("dim") if dims else n.op("Range", [n.const(0, np.int64), rank_of(n, x),
                                                     n.const(1, np.int64)],
                                            output_type=np.dtype(np.int64))
    return [n.op("ReduceL2", [x, axes], keep_dims=bool(n.value("keepdim", False)))]

