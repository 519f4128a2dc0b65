"""ONNX translators for quantized ops, in the patterns OpenVINO's own ONNX frontend builds so
its CPU plugin runs them in int8: QuantizeLinear is FakeQuantize then Convert to the integer
type; DequantizeLinear is Convert, Subtract the zero point, Multiply by the scale. QLinear*
ops dequantize their inputs, compute in float and quantize the result; *Integer ops compute in
float (exact for int8 products) and convert to int32."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from onnx import helper

from converter.front.onnx.ops.core import nan_to_negative_zero, saturate
from converter.front.onnx.ops.movement import known_dtype
from converter.front.onnx.ops.nn import convolution
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.front.translator import static_rank
from converter.graph.port import Port
from converter.ir.carried import carrier

I64 = np.dtype(np.int64)
F32 = np.dtype(np.float32)
_INTEGER_TYPES = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16,
                                              ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2,
                                              ml_dtypes.uint2))
_FLOAT_TYPES = tuple(np.dtype(t) for t in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2,
                                           ml_dtypes.float4_e2m1fn))


def _per_axis(n: OnnxNode, param: Port | None, x: int, axis: int, block: int = 0) -> Port:
    """A scale or zero point shaped to broadcast over input x: per tensor (rank 0 or a single
    value), per axis (1-D along axis) or blocked (x's rank, block values per entry on axis)."""
    if param is None or static_rank(param) == 0:
        return param
    if block:
        shape = n.op("ShapeOf", [n.input(x)], output_type=I64)
        size = n.op("Gather", [shape, np.int64(axis), np.int64(0)])
        rows = n.op("Range", [np.int64(0), size, np.int64(1)], output_type=I64)
        return n.op("Gather", [param, n.op("Divide", [rows, np.int64(block)]), np.int64(axis)])
    rank = n.static_rank(x)
    if rank is not None and not -rank <= axis < rank:  # a one-value scale on a lower rank
        return param
    if axis < 0 or rank is not None:
        trailing = n.const(np.ones(-axis - 1 if axis < 0 else rank - 1 - axis, I64))
    else:  # [1] * (rank - 1 - axis), the rank known at run time
        rank_1d = n.op("ShapeOf", [n.op("ShapeOf", [n.input(x)], output_type=I64)],
                       output_type=I64)
        count = n.op("Subtract", [rank_1d, np.array([axis + 1], I64)])
        trailing = n.op("Broadcast", [np.int64(1), count])
    shape = n.op("Concat", [np.array([-1], I64), trailing], axis=0)
    return n.op("Reshape", [param, shape], special_zero=False)


def _element_type(port: Port) -> np.dtype | None:
    """port's element type when evident before inference, looking through reshapes."""
    while port.node.soft_get("op") in ("Reshape", "Gather"):
        port = port.node.in_port(0).get_source()
    return known_dtype(port)


def dequantize(n: OnnxNode, x: Port, scale: Port, zero: Port | None) -> Port:
    """(x - zero) * scale in scale's float type; on constant x (weights) the ops stay in the IR
    unfolded, so that OpenVINO keeps the weights in int8."""
    keep = {"keep_unfolded": True} if x.node.soft_get("op") == "Const" else {}
    dtype = _element_type(scale)
    y = (n.op("Convert", [x], destination_type=dtype, **keep) if dtype is not None
         else n.op("ConvertLike", [x, scale], **keep))
    if zero is not None:
        zero = (n.op("Convert", [zero], destination_type=dtype, **keep) if dtype is not None
                else n.op("ConvertLike", [zero, scale], **keep))
        y = n.op("Subtract", [y, zero], **keep)
    return n.op("Multiply", [y, scale], **keep)


def quantize(n: OnnxNode, x: Port, scale: Port, zero: Port | None, dtype: np.dtype) -> Port:
    """saturate(round(x / scale) + zero) in dtype, as FakeQuantize (levels: dtype's range).
    Its bounds are computed in scale's type (x's type in ONNX), so a constant scale and zero
    point give constant bounds, which OpenVINO needs to run the next op in int8."""
    if dtype in _FLOAT_TYPES:
        return _quantize_float(n, x, scale, zero, dtype)
    if dtype not in _INTEGER_TYPES:
        n.reject(f"quantizes to {dtype}, which extgen cannot write in IR yet",
                 "quantize to int2, uint2, int4, uint4, int8, uint8, int16, uint16, "
                 "float8_e4m3fn, float8_e5m2 or float4_e2m1")
    info = ml_dtypes.iinfo(dtype)
    if dtype.itemsize > 1 or not _constant(scale):
        return _quantize_rounded(n, x, scale, zero, dtype)
    low, high = (n.folded("ConvertLike", [np.array(v, F32), scale]) for v in (info.min, info.max))
    zero_f = n.folded("ConvertLike", [np.array(0, F32) if zero is None else zero, scale])
    bounds = [n.folded("Multiply", [n.folded("Subtract", [v, zero_f]), scale])
              for v in (low, high)]
    y = n.op("FakeQuantize", [x, *bounds, low, high], levels=int(info.max) - int(info.min) + 1)
    return n.op("Convert", [y], destination_type=carrier(dtype))


def _constant(port: Port) -> bool:
    """port is a Const, looking through reshapes."""
    while port.node.soft_get("op") in ("Reshape", "Gather"):
        port = port.node.in_port(0).get_source()
    return port.node.soft_get("op") == "Const"


def _quantize_rounded(n: OnnxNode, x: Port, scale: Port, zero: Port | None,
                      dtype: np.dtype) -> Port:
    """round(x / scale) + zero, clamped, for 16-bit types and scales computed at run time:
    FakeQuantize's interval arithmetic misses halves (3 / 2 + 32767 gave 32768 in uint16), and
    OpenVINO runs neither in int8 anyway."""
    y = n.op("Round", [n.op("Divide", [x, scale])], mode="half_to_even")
    if zero is not None:
        y = n.op("Add", [y, n.op("ConvertLike", [zero, y])])
    info = ml_dtypes.iinfo(dtype)
    y = n.op("Clamp", [y], min=float(info.min), max=float(info.max))
    return n.op("Convert", [y], destination_type=carrier(dtype))


def _quantize_float(n: OnnxNode, x: Port, scale: Port, zero: Port | None,
                    dtype: np.dtype) -> Port:
    """x / scale + zero converted to a float8 type (which rounds), saturated unless the node
    says saturate=0."""
    y = n.op("Divide", [x, scale])
    if zero is not None:
        y = n.op("Add", [y, n.op("ConvertLike", [n.op("Convert", [zero], destination_type=F32),
                                                  scale])])
    if n.attr("saturate", 1):
        y = saturate(n, y, dtype)
    if dtype == np.dtype(ml_dtypes.float4_e2m1fn):
        y = nan_to_negative_zero(n, y)
    return n.op("Convert", [y], destination_type=dtype)


def _quantized_type(n: OnnxNode, zero: int) -> np.dtype:
    """The integer type of a QuantizeLinear's output: its zero point's, else output_dtype's."""
    src = n.input(zero)
    if src is not None:
        dtype = known_dtype(src)
        if dtype is None:
            n.reject("has a zero point of unknown element type", "make it a constant")
        return dtype
    code = n.attr("output_dtype", 0)
    return np.dtype(helper.tensor_dtype_to_np_dtype(code)) if code else np.dtype(np.uint8)


@onnx_op("QuantizeLinear")
def quantize_linear(n: OnnxNode):
    axis, block = n.attr("axis", 1), n.attr("block_size", 0)
    scale = _per_axis(n, n.input(1), 0, axis, block)
    zero = _per_axis(n, n.input(2), 0, axis, block)
    return [quantize(n, n.input(0), scale, zero, _quantized_type(n, 2))]


@onnx_op("DequantizeLinear")
def dequantize_linear(n: OnnxNode):
    axis, block = n.attr("axis", 1), n.attr("block_size", 0)
    scale = _per_axis(n, n.input(1), 0, axis, block)
    zeros = n.const_value(2)
    if zeros is not None and not zeros.any():  # no Subtract of zeros, as in ovc's IR
        return [dequantize(n, n.input(0), scale, None)]
    return [dequantize(n, n.input(0), scale, _per_axis(n, n.input(2), 0, axis, block))]


@onnx_op("DynamicQuantizeLinear")
def dynamic_quantize_linear(n: OnnxNode):
    x = n.input(0)
    zero = n.op("ConvertLike", [np.array(0, F32), x])
    flat = n.op("Reshape", [x, np.array([-1], I64)], special_zero=False)  # any rank
    axis = np.array([0], I64)
    low = n.op("Minimum", [n.op("ReduceMin", [flat, axis], keep_dims=False), zero])
    high = n.op("Maximum", [n.op("ReduceMax", [flat, axis], keep_dims=False), zero])
    scale = n.op("Divide", [n.op("Subtract", [high, low]),
                            n.op("ConvertLike", [np.array(255, F32), x])])
    shift = n.op("Round", [n.op("Divide", [n.op("Negative", [low]), scale])],
                 mode="half_to_even")
    point = n.op("Convert", [n.op("Clamp", [shift], min=0.0, max=255.0)],
                 destination_type=np.dtype(np.uint8))
    return [quantize(n, x, scale, point, np.dtype(np.uint8)), scale, point]


@onnx_op("QLinearMatMul")
def qlinear_matmul(n: OnnxNode):
    a = dequantize(n, n.input(0), n.input(1), n.input(2))
    b = dequantize(n, n.input(3), n.input(4), n.input(5))
    y = n.op("MatMul", [a, b])
    return [quantize(n, y, n.input(6), n.input(7), _quantized_type(n, 7))]


@onnx_op("QLinearConv")
def qlinear_conv(n: OnnxNode):
    x = dequantize(n, n.input(0), n.input(1), n.input(2))
    w_scale = _per_axis(n, n.input(4), 3, 0)
    w_zero = _per_axis(n, n.input(5), 3, 0)
    y = convolution(n, x, dequantize(n, n.input(3), w_scale, w_zero), weights=3)
    if n.has_input(8):
        nsp = (n.static_rank(3) or 4) - 2
        step = n.op("Multiply", [n.input(1), n.input(4)])
        bias = n.op("Multiply", [n.op("ConvertLike", [n.input(8), step]), step])
        y = n.op("Add", [y, n.op("Reshape", [bias, np.array([1, -1] + [1] * nsp, I64)],
                                 special_zero=False)])
    return [quantize(n, y, n.input(6), n.input(7), _quantized_type(n, 7))]


def _integer(n: OnnxNode, i: int, zero: Port | None) -> Port:
    x = n.op("Convert", [n.input(i)], destination_type=F32)
    if zero is None:
        return x
    return n.op("Subtract", [x, n.op("Convert", [zero], destination_type=F32)])


@onnx_op("MatMulInteger")
def matmul_integer(n: OnnxNode):
    a_zero = n.input(2)
    if a_zero is not None and static_rank(a_zero) == 1:  # one per row of A
        a_zero = n.op("Unsqueeze", [a_zero, np.array([-1], I64)])
    y = n.op("MatMul", [_integer(n, 0, a_zero), _integer(n, 1, n.input(3))])
    return [n.op("Convert", [y], destination_type=np.dtype(np.int32))]


@onnx_op("ConvInteger")
def conv_integer(n: OnnxNode):
    w_zero = _per_axis(n, n.input(3), 1, 0)
    y = convolution(n, _integer(n, 0, n.input(2)), _integer(n, 1, w_zero))
    return [n.op("Convert", [y], destination_type=np.dtype(np.int32))]
