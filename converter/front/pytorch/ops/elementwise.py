"""ATen elementwise ops: arithmetic, comparisons, logic, activations, type conversion."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.ops._common import operands
from converter.front.pytorch.translator import TorchNode, aten_op

_BINARY = {
    "aten::mul": "Multiply", "aten::pow": "Power", "aten::eq": "Equal", "aten::ne": "NotEqual",
    "aten::lt": "Less", "aten::le": "LessEqual", "aten::gt": "Greater",
    "aten::ge": "GreaterEqual", "aten::maximum": "Maximum", "aten::minimum": "Minimum",
    "aten::logical_and": "LogicalAnd", "aten::logical_or": "LogicalOr",
    "aten::logical_xor": "LogicalXor", "aten::remainder": "FloorMod", "aten::fmod": "Mod",
    "aten::bitwise_or": "BitwiseOr", "aten::bitwise_xor": "BitwiseXor",
    "aten::bitwise_and": "BitwiseAnd", "aten::__and__": "BitwiseAnd", "aten::__or__": "BitwiseOr",
    "aten::__xor__": "BitwiseXor",
}
_UNARY = {
    "aten::relu": "ReLU", "aten::sigmoid": "Sigmoid", "aten::tanh": "Tanh", "aten::exp": "Exp",
    "aten::log": "Log", "aten::sqrt": "Sqrt", "aten::erf": "Erf", "aten::abs": "Abs",
    "aten::neg": "Negative", "aten::floor": "Floor", "aten::ceil": "Ceiling",
    "aten::sin": "Sin", "aten::cos": "Cos", "aten::sign": "Sign", "aten::round": "Round",
    "aten::hardswish": "HSwish", "aten::hardsigmoid": "HSigmoid", "aten::silu": "Swish",
    "aten::mish": "Mish", "aten::logical_not": "LogicalNot", "aten::bitwise_not": "BitwiseNot",
    "aten::softplus": "SoftPlus", "aten::isnan": "IsNaN", "aten::isinf": "IsInf",
    "aten::isfinite": "IsFinite",
}
_IDENTITY = ("aten::clone", "aten::alias", "aten::contiguous", "aten::detach",
             "aten::lift_fresh_copy", "aten::dropout", "aten::feature_dropout",
             "aten::lift_fresh", "aten::native_dropout")


@aten_op(*_BINARY)
def binary(n: TorchNode):
    a, b = operands(n)
    return [n.op(_BINARY[n.op_type], [a, b])]


@aten_op(*_UNARY)
def unary(n: TorchNode):
    kind = _UNARY[n.op_type]
    if kind == "Round":
        return [n.op(kind, [n.tensor(0)], mode="half_to_even")]
    return [n.op(kind, [n.tensor(0)])]


@aten_op(*_IDENTITY)
def identity(n: TorchNode):
    return [n.tensor(0), None]


@aten_op("aten::add", "aten::sub", "aten::rsub")
def add(n: TorchNode):
    a, b = operands(n)
    alpha = n.value("alpha", 1)
    if n.op_type == "aten::rsub":
        a, b = b, a
    if alpha != 1:
        scaled = b if n.op_type != "aten::rsub" else a
        scaled = n.op("Multiply", [scaled, n.op("ConvertLike", [n.const(alpha), scaled])])
        a, b = (a, scaled) if n.op_type != "aten::rsub" else (b, scaled)
    return [n.op("Add" if n.op_type == "aten::add" else "Subtract", [a, b])]


@aten_op("aten::div")
def div(n: TorchNode):
    a, b = operands(n)
    mode = n.arg("rounding_mode")
    y = n.op("Divide", [a, b], m_pythondiv=mode == "floor")
    if mode == "floor":
        return [n.op("Floor", [y])]
    if mode == "trunc":
        return [n.op("Multiply", [n.op("Sign", [y]), n.op("Floor", [n.op("Abs", [y])])])]
    return [y]


@aten_op("aten::rsqrt", "aten::reciprocal")
def reciprocal(n: TorchNode):
    x = n.tensor(0)
    if n.op_type == "aten::rsqrt":
        x = n.op("Sqrt", [x])
    return [n.op("Divide", [n.op("ConvertLike", [n.const(1.0), x]), x])]


@aten_op("aten::gelu")
def gelu(n: TorchNode):
    mode = "tanh" if n.arg("approximate", "none") == "tanh" else "erf"
    return [n.op("Gelu", [n.tensor(0)], approximation_mode=mode)]


@aten_op("aten::clamp", "aten::clip", "aten::hardtanh", "aten::clamp_min", "aten::clamp_max",
         "aten::relu6")
def clamp(n: TorchNode):
    x = n.tensor(0)
    low, high = {"aten::hardtanh": (n.arg(1, -1.0), n.arg(2, 1.0)), "aten::relu6": (0.0, 6.0),
                 "aten::clamp_max": (None, n.arg(1))}.get(n.op_type, (n.arg(1), n.arg(2)))
    bounds = [v for v in (low, high) if v is not None]
    if all(isinstance(v, (int, float)) for v in bounds) and low is not None \
            and high is not None:
        return [n.op("Clamp", [x], min=float(low), max=float(high))]
    for value, kind in ((low, "Maximum"), (high, "Minimum")):
        if value is not None:
            bound = value if not isinstance(value, (int, float)) else n.const(value, np.float32)
            x = n.op(kind, [x, n.op("ConvertLike", [bound, x])])
    return [x]


@aten_op("aten::where")
def where(n: TorchNode):
    a, b = operands(n, 1, 2)
    return [n.op("Select", [n.tensor(0), a, b])]


@aten_op("aten::_to_copy", "aten::to", "aten::type_as")
def to_copy(n: TorchNode):
    x = n.tensor(0)
    if n.op_type == "aten::type_as":
        return [n.op("ConvertLike", [x, n.tensor(1)])]
    dtype = n.arg("dtype")
    if isinstance(dtype, np.dtype):
        return [n.op("Convert", [x], destination_type=dtype)]
    other = next((n.arg(k) for k in ("other",) if n.is_tensor(k)), None)
    return [x if other is None else n.op("ConvertLike", [x, other])]


@aten_op("aten::_assert_tensor_metadata", "aten::_assert_scalar", "aten::sym_constrain_range")
def assertion(n: TorchNode):
    return []


@aten_op("aten::nan_to_num")
def nan_to_num(n: TorchNode):
    """NaN, +inf and -inf replaced (by default: 0 and float32's largest and lowest)."""
    x = n.tensor(0)
    limit = float(np.finfo(np.float32).max)
    for test, key, default in (("IsNaN", "nan", 0.0), ("+inf", "posinf", limit),
                               ("-inf", "neginf", -limit)):
        found = (n.op("IsNaN", [x]) if test == "IsNaN" else
                 n.op("IsInf", [x], detect_positive=test == "+inf",
                      detect_negative=test == "-inf"))
        value = n.op("ConvertLike", [n.const(float(n.value(key, default))), x])
        x = n.op("Select", [found, value, x])
    return [x]
