"""ONNX BitCast (opset 26) in standard ops (OpenVINO has no bit reinterpretation): every value
goes through its bit pattern as a signed integer of the same width, held in i64 (integers of
one width into another just Convert, which wraps). A float's
pattern is built from its sign, its binade (Bucketize over the powers of two, exact) and its
significand (|x| scaled by powers of two, exact); a pattern becomes a float the other way round.
Both are exact for every finite value; inf keeps its pattern, NaN becomes the quiet NaN."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx

from converter.front.onnx.ops.movement import known_dtype
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.dtype(np.int64)


def _is_float(dtype: np.dtype) -> bool:
    try:
        ml_dtypes.finfo(dtype)
    except ValueError:
        return False
    return True


def _power_pairs(n: OnnxNode, exponents: np.ndarray, dtype: np.dtype) -> list[Port]:
    """2^e as two factors per entry, each a normal number of dtype (2^e itself may not be)."""
    half = exponents // 2
    return [n.const(np.exp2(e).astype(dtype)) for e in (half, exponents - half)]


def _float_to_pattern(n: OnnxNode, x: Port, dtype: np.dtype) -> Port:
    info, width = ml_dtypes.finfo(dtype), dtype.itemsize * 8
    mant, low = int(info.nmant), int(info.minexp)
    top = (1 << (width - 1 - mant)) - 1  # the all-ones exponent field: inf and NaN
    magnitude = n.op("Abs", [x])
    boundaries = np.append(np.exp2(np.arange(low, int(info.maxexp))), np.inf).astype(dtype)
    field = n.op("Bucketize", [magnitude, boundaries], with_right_bound=False, output_type=I64)
    # |x| * 2^shift[field] is the significand, an integer, its implicit 1 included when normal
    shift = np.append(mant - low, mant - low + 1 - np.arange(1, top + 1))
    scaled = magnitude
    for factor in _power_pairs(n, shift, dtype):
        scaled = n.op("Multiply", [scaled, n.op("Gather", [factor, field, np.int64(0)])])
    normal = n.op("Greater", [field, np.int64(0)])
    implicit = n.op("Select", [normal, n.const(dtype.type(1 << mant)), n.const(dtype.type(0))])
    nan, inf = n.op("IsNaN", [x]), n.op("IsInf", [x])
    special = n.op("LogicalOr", [nan, inf])
    fraction = n.op("Select", [special, n.const(dtype.type(0)),
                               n.op("Subtract", [scaled, implicit])])
    fraction = n.op("Convert", [fraction], destination_type=I64)
    # inf and NaN set the fields, which stay below 2^24, before they are joined by bitwise
    # ops: OpenVINO's CPU ran a Select of whole i32 patterns in f32 (2139081118 came out
    # 2139081088)
    field = n.op("Select", [nan, np.int64(top), field])
    fraction = n.op("Select", [nan, np.int64(1 << (mant - 1)), fraction])  # the quiet NaN
    pattern = n.op("BitwiseOr", [n.op("BitwiseLeftShift", [field, np.int64(mant)]), fraction])
    # negative: x < 0, or -0 (1 / -0 is -inf)
    one = n.op("ConvertLike", [np.float32(1), x])
    zero = n.op("ConvertLike", [np.float32(0), x])
    negative = n.op("LogicalOr", [n.op("Less", [x, zero]),
                                  n.op("Less", [n.op("Divide", [one, x]), zero])])
    sign = np.int64(-(1 << (width - 1)))
    return n.op("Select", [negative, n.op("BitwiseOr", [pattern, sign]), pattern])


def _pattern_to_float(n: OnnxNode, pattern: Port, dtype: np.dtype) -> Port:
    info, width = ml_dtypes.finfo(dtype), dtype.itemsize * 8
    mant, bias = int(info.nmant), int(info.maxexp) - 1
    top = (1 << (width - 1 - mant)) - 1
    negative = n.op("Less", [pattern, np.int64(0)])
    # the fields cut out by bitwise ops (OpenVINO's CPU may run whole-pattern i32 arithmetic
    # in f32)
    positive = n.op("BitwiseAnd", [pattern, np.int64((1 << (width - 1)) - 1)])
    field = n.op("BitwiseRightShift", [positive, np.int64(mant)])
    bits = n.op("BitwiseAnd", [positive, np.int64((1 << mant) - 1)])
    normal = n.op("Greater", [field, np.int64(0)])
    significand = n.op("Add", [bits, n.op("Multiply", [n.op("Convert", [normal],
                                                            destination_type=I64),
                                                       np.int64(1 << mant)])])
    value = n.op("Multiply", [n.op("Convert", [significand], destination_type=dtype),
                              n.const(np.exp2(-mant).astype(dtype))])
    exponents = np.append(1 - bias, np.arange(1, top + 1) - bias)
    for factor in _power_pairs(n, exponents, dtype):
        value = n.op("Multiply", [value, n.op("Gather", [factor, field, np.int64(0)])])
    special = n.op("Equal", [field, np.int64(top)])
    infinite = n.op("Select", [n.op("Equal", [bits, np.int64(0)]), n.const(dtype.type(np.inf)),
                               n.const(dtype.type(np.nan))])
    value = n.op("Select", [special, infinite, value])
    flip = n.op("Select", [negative, n.const(dtype.type(-1)), n.const(dtype.type(1))])
    return n.op("Multiply", [value, flip])


@onnx_op("BitCast")
def bitcast(n: OnnxNode) -> list[Port]:
    source = known_dtype(n.input(0))
    target = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(n.attr("to")))
    if source is None or source.itemsize != target.itemsize:
        n.reject(f"casts {source or 'a tensor of unknown type'} to {target}: the widths must "
                 "be known and equal", "give the input a declared type of the same width")
    x = n.input(0)
    if not _is_float(source) and not _is_float(target):
        return [n.op("Convert", [x], destination_type=target)]  # same width: wraps
    signed = np.dtype(f"int{source.itemsize * 8}")
    if _is_float(source):
        pattern = _float_to_pattern(n, x, source)
    else:
        pattern = n.op("Convert", [n.op("Convert", [x], destination_type=signed)],
                       destination_type=I64)
    if _is_float(target):
        return [_pattern_to_float(n, pattern, target)]
    return [n.op("Convert", [n.op("Convert", [pattern], destination_type=signed)],
                 destination_type=target)]
