"""Constant, Identity, Cast and friends."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx

from converter.front.onnx.ops._carried_casts import cast_to_carried
from converter.front.onnx.ops.movement import known_dtype
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.ir.carried import is_carried
from converter.ir.types import element_type

_FLOAT4 = np.dtype(ml_dtypes.float4_e2m1fn)
_E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)


@onnx_op("Constant")
def constant(n: OnnxNode):
    for key in ("value", "value_float", "value_floats", "value_int", "value_ints"):
        if n.has_attr(key):
            value = n.attr(key)
            dtype = np.float32 if "float" in key else np.int64 if "int" in key else None
            return [n.const(value, dtype=dtype, name=n.name)]
    n.reject("no supported value attribute")


@onnx_op("Identity")
def identity(n: OnnxNode):
    return [n.input(0)]


@onnx_op("Cast")
def cast(n: OnnxNode):
    to = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(n.attr("to")))
    return [_convert(n, to)]


@onnx_op("CastLike")
def cast_like(n: OnnxNode):
    to = known_dtype(n.input(1))
    return [_convert(n, to) if to is not None else n.op("ConvertLike", [n.input(0), n.input(1)])]


def _convert(n: OnnxNode, to: np.dtype):
    """Convert input 0 to `to`, saturating to float8's range unless saturate=0 (OpenVINO's
    Convert overflows to NaN/inf); a type the IR carries in another is computed in its
    carrier."""
    x = n.input(0)
    if is_carried(to):
        return cast_to_carried(n, x, to, bool(n.attr("saturate", 1)))
    try:
        element_type(to)
    except ValueError:
        n.reject(f"OpenVINO IR has no element type for {to.name}",
                 "cast to a type OpenVINO has (float8_e4m3fn, float8_e5m2, bfloat16, int4, ...)")
    if to == _E8M0:
        return _to_e8m0(n, x, n.attr("round_mode", "up"), bool(n.attr("saturate", 1)))
    if to.name.startswith("float8") and n.attr("saturate", 1):
        x = saturate(n, x, to)
    if to == _FLOAT4:
        x = nan_to_negative_zero(n, x)
    return n.op("Convert", [x], destination_type=to)


def _to_e8m0(n: OnnxNode, x, mode: str, saturate: bool):
    """float8_e8m0 (2^(code - 127), code 255 NaN) rounded as round_mode says: its code is how
    many powers of two lie below x (up), at or below x less one (down), or how many midpoints
    1.5 * 2^k lie at or below x (nearest, ties up); saturated to the codes 0..254, else past
    2^127 NaN. The code picks the value from a table."""
    x = n.op("Convert", [x], destination_type=np.dtype(np.float32))
    powers = np.exp2(np.arange(-127, 128, dtype=np.float64))
    if mode == "nearest":
        # the first midpoint, subnormal in f32, raised to 2^-126: OpenVINO's CPU flushes it
        # to 0 (so 0 rounded up); only subnormal inputs, which it flushes too, differ
        midpoints = np.maximum(1.5 * powers[:-1], 2.0**-126).astype(np.float32)
        code = n.op("Bucketize", [x, midpoints], with_right_bound=False)
    elif mode == "down":
        below = n.op("Bucketize", [x, powers.astype(np.float32)], with_right_bound=False)
        code = n.op("Maximum", [n.op("Subtract", [below, np.int64(1)]), np.int64(0)])
    else:
        code = n.op("Bucketize", [x, powers.astype(np.float32)], with_right_bound=True)
    if saturate:
        code = n.op("Minimum", [code, np.int64(254)])
    code = n.op("Select", [n.op("IsNaN", [x]), np.int64(255), code])
    table = np.arange(256, dtype=np.uint8).view(_E8M0)
    return n.op("Gather", [table, code, np.int64(0)])


def nan_to_negative_zero(n: OnnxNode, x):
    """NaN as -0, the code float4_e2m1 (which has no NaN) gives it in ONNX's cases (ml_dtypes'
    cast); OpenVINO's Convert gives 6."""
    negative_zero = n.op("ConvertLike", [np.float32(-0.0), x])
    return n.op("Select", [n.op("IsNaN", [x]), negative_zero, x])


def saturate(n: OnnxNode, x, to: np.dtype):
    """x clamped to float type `to`'s finite range, NaN kept (OpenVINO's Clamp makes NaN the
    lower bound, so NaN bypasses it)."""
    top = float(ml_dtypes.finfo(to).max)
    return n.op("Select", [n.op("IsNaN", [x]), x, n.op("Clamp", [x], min=-top, max=top)])
