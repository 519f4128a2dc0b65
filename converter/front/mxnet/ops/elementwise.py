"""MXNet translators for element-wise ops: binary (elemwise_*, broadcast_*, the _Plus-style
operator names), scalar (_plus_scalar, _rminus_scalar, ...), unary math, add_n, clip, Cast and
the identities (Dropout, _copy, BlockGrad, ...)."""

from __future__ import annotations

import numpy as np

from converter.front.mxnet.translator import MxnetNode, mxnet_op

_BINARY = {
    "Add": ("elemwise_add", "_Plus", "_plus", "_add", "broadcast_add", "broadcast_plus"),
    "Subtract": ("elemwise_sub", "_Minus", "_minus", "_sub", "broadcast_sub", "broadcast_minus"),
    "Multiply": ("elemwise_mul", "_Mul", "_mul", "broadcast_mul"),
    "Divide": ("elemwise_div", "_Div", "_div", "broadcast_div"),
    "Maximum": ("_Maximum", "_maximum", "broadcast_maximum"),
    "Minimum": ("_Minimum", "_minimum", "broadcast_minimum"),
    "Power": ("_Power", "_power", "broadcast_power"),
    "Equal": ("_equal", "broadcast_equal"),
    "Greater": ("_greater", "broadcast_greater"),
    "Less": ("_lesser", "broadcast_lesser"),
}
# scalar op -> (opset op, scalar first?)
_SCALAR = {
    "_plus_scalar": ("Add", False), "_PlusScalar": ("Add", False),
    "_minus_scalar": ("Subtract", False), "_MinusScalar": ("Subtract", False),
    "_rminus_scalar": ("Subtract", True), "_RMinusScalar": ("Subtract", True),
    "_mul_scalar": ("Multiply", False), "_MulScalar": ("Multiply", False),
    "_div_scalar": ("Divide", False), "_DivScalar": ("Divide", False),
    "_rdiv_scalar": ("Divide", True), "_RDivScalar": ("Divide", True),
    "_power_scalar": ("Power", False), "_PowerScalar": ("Power", False),
    "_rpower_scalar": ("Power", True), "_RPowerScalar": ("Power", True),
    "_maximum_scalar": ("Maximum", False), "_MaximumScalar": ("Maximum", False),
    "_minimum_scalar": ("Minimum", False), "_MinimumScalar": ("Minimum", False),
}
_UNARY = {
    "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "abs": "Abs", "negative": "Negative",
    "sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "ReLU", "floor": "Floor", "ceil": "Ceiling",
    "round": "Round", "sin": "Sin", "cos": "Cos", "erf": "Erf", "softsign": "SoftSign",
    "sign": "Sign",
}
_IDENTITY = ("Dropout", "_copy", "identity", "BlockGrad", "stop_gradient", "MakeLoss", "make_loss",
             "_CrossDeviceCopy")
_CAST = {"float32": np.float32, "float16": np.float16, "float64": np.float64, "int32": np.int32,
         "int64": np.int64, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}


def _binary(kind: str):
    def translate(n: MxnetNode):
        y = n.op(kind, [n.input(0), n.input(1)])
        # MXNet's comparisons give 1 or 0 in the input's type
        return [n.op("ConvertLike", [y, n.input(0)]) if kind in _COMPARE else y]

    return translate


for _kind, _names in _BINARY.items():
    mxnet_op(*_names)(_binary(_kind))


@mxnet_op(*_SCALAR)
def scalar_op(n: MxnetNode):
    kind, reverse = _SCALAR[n.op_type]
    value = np.float32(n.attrs.float("scalar", 0.0))
    if not reverse and kind in ("Subtract", "Divide"):  # x + (-s) and x * s^-1, as MO writes them
        with np.errstate(divide="ignore"):  # x / 0 is x * inf
            kind, value = (("Add", -value) if kind == "Subtract"
                           else ("Multiply", np.reciprocal(value)))
    scalar = n.const(value, np.float32)
    inputs = [scalar, n.input(0)] if reverse else [n.input(0), scalar]
    return [n.op(kind, inputs)]


# MXNet's comparisons give 1 or 0 in the input's type
_COMPARE = {"Equal", "Greater", "Less"}
_COMPARE_SCALAR = {"_greater_scalar": "Greater", "_lesser_scalar": "Less",
                   "_equal_scalar": "Equal", "_not_equal_scalar": "NotEqual",
                   "_greater_equal_scalar": "GreaterEqual", "_lesser_equal_scalar": "LessEqual"}


@mxnet_op(*_COMPARE_SCALAR)
def compare_scalar(n: MxnetNode):
    x = n.input(0)
    scalar = n.op("ConvertLike", [n.const(n.attrs.float("scalar", 0.0), np.float32), x])
    return [n.op("ConvertLike", [n.op(_COMPARE_SCALAR[n.op_type], [x, scalar]), x])]


@mxnet_op(*_UNARY)
def unary(n: MxnetNode):
    return [n.op(_UNARY[n.op_type], [n.input(0)])]


@mxnet_op("square")
def square(n: MxnetNode):
    return [n.op("Multiply", [n.input(0), n.input(0)])]


@mxnet_op("rsqrt")
def rsqrt(n: MxnetNode):
    return [n.op("Divide", [n.const(1.0, np.float32), n.op("Sqrt", [n.input(0)])])]


@mxnet_op("reciprocal")
def reciprocal(n: MxnetNode):
    return [n.op("Divide", [n.const(1.0, np.float32), n.input(0)])]


@mxnet_op(*_IDENTITY)
def identity(n: MxnetNode):
    return [n.input(0)]


@mxnet_op("add_n", "ElementWiseSum", "_ElementWiseSum")
def add_n(n: MxnetNode):
    y = n.input(0)
    for i in range(1, n.num_inputs):
        y = n.op("Add", [y, n.input(i)])
    return [y]


@mxnet_op("clip")
def clip(n: MxnetNode):
    lo, hi = n.attrs.float("a_min", None), n.attrs.float("a_max", None)
    if lo is None or hi is None:
        n.reject("a_min and a_max are required")
    return [n.op("Clamp", [n.input(0)], min=lo, max=hi)]


@mxnet_op("Cast", "cast")
def cast(n: MxnetNode):
    name = n.attrs.str("dtype", "float32")
    if name not in _CAST:
        n.reject(f"dtype {name} is not supported")
    return [n.op("Convert", [n.input(0)], destination_type=np.dtype(_CAST[name]))]

