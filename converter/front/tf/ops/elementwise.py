"""TensorFlow translators for elementwise ops: arithmetic, comparison, activations, Cast."""

from __future__ import annotations

import numpy as np

from converter.front.tf.ops.spectral import complex_cast, complex_op, is_complex
from converter.front.tf.translator import TfNode, tf_op

# TF op -> opset op, same inputs
_BINARY = {
    "Add": "Add", "AddV2": "Add", "Sub": "Subtract", "Mul": "Multiply", "RealDiv": "Divide",
    "Maximum": "Maximum", "Minimum": "Minimum", "Pow": "Power",
    "SquaredDifference": "SquaredDifference", "FloorMod": "FloorMod", "TruncateMod": "Mod",
    "Equal": "Equal",
    "NotEqual": "NotEqual", "Less": "Less", "LessEqual": "LessEqual", "Greater": "Greater",
    "GreaterEqual": "GreaterEqual", "LogicalAnd": "LogicalAnd", "LogicalOr": "LogicalOr",
    "Mod": "Mod", "BitwiseAnd": "BitwiseAnd", "BitwiseOr": "BitwiseOr",
    "BitwiseXor": "BitwiseXor", "LeftShift": "BitwiseLeftShift",
    "RightShift": "BitwiseRightShift",
}
_UNARY = {
    "Relu": "ReLU", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Exp": "Exp", "Log": "Log",
    "Sqrt": "Sqrt", "Abs": "Abs", "Neg": "Negative", "Floor": "Floor", "Ceil": "Ceiling",
    "Sin": "Sin", "Cos": "Cos", "Erf": "Erf", "Softplus": "SoftPlus", "Softsign": "SoftSign",
    "Sign": "Sign", "LogicalNot": "LogicalNot", "Round": "Round", "Tan": "Tan", "Asin": "Asin",
    "Acos": "Acos", "Atan": "Atan", "Sinh": "Sinh", "Cosh": "Cosh", "Asinh": "Asinh",
    "Acosh": "Acosh", "Atanh": "Atanh", "IsNan": "IsNaN", "IsInf": "IsInf",
    "IsFinite": "IsFinite", "Invert": "BitwiseNot",
}


def _binary(kind: str):
    def translate(n: TfNode):
        if is_complex(n):
            return [complex_op(n, kind, [n.input(0), n.input(1)])]
        return [n.op(kind, [n.input(0), n.input(1)])]

    return translate


def _unary(kind: str):
    def translate(n: TfNode):
        if is_complex(n):
            return [complex_op(n, kind, [n.input(0)])]
        return [n.op(kind, [n.input(0)])]

    return translate


for _tf, _ov in _BINARY.items():
    tf_op(_tf)(_binary(_ov))
for _tf, _ov in _UNARY.items():
    tf_op(_tf)(_unary(_ov))


def _scalar(n: TfNode, value: float):
    dtype = n.attr("T", np.dtype(np.float32))
    return n.const(np.asarray(value, dtype=dtype))


@tf_op("Div", "TruncateDiv")
def div(n: TfNode):
    # Div truncates integers (C semantics); FloorDiv floors
    return [n.op("Divide", [n.input(0), n.input(1)], m_pythondiv=False)]


@tf_op("FloorDiv")
def floor_div(n: TfNode):
    dtype = n.attr("T", np.dtype(np.float32))
    if np.issubdtype(dtype, np.integer):
        # x - FloorMod(x, y) divides exactly: no rounding left to the division (OpenVINO's CPU
        # truncates an integer Divide even with m_pythondiv)
        x, y = n.input(0), n.input(1)
        exact = n.op("Subtract", [x, n.op("FloorMod", [x, y])])
        return [n.op("Divide", [exact, y], m_pythondiv=False)]
    return [n.op("Floor", [n.op("Divide", [n.input(0), n.input(1)])])]


@tf_op("Relu6")
def relu6(n: TfNode):
    return [n.op("Clamp", [n.input(0)], min=0.0, max=6.0)]


@tf_op("Elu")
def elu(n: TfNode):
    return [n.op("Elu", [n.input(0)], alpha=1.0)]


@tf_op("Selu")
def selu(n: TfNode):
    return [n.op("Selu", [n.input(0), _scalar(n, 1.6732632423543772),
                          _scalar(n, 1.0507009873554805)])]


@tf_op("LeakyRelu")
def leaky_relu(n: TfNode):
    alpha = float(n.attr("alpha", 0.2))
    x = n.input(0)
    return [n.op("PReLU", [x, n.const(np.array([alpha], dtype=n.attr("T", np.dtype(np.float32))))])]


@tf_op("Rsqrt")
def rsqrt(n: TfNode):
    return [n.op("Power", [n.input(0), _scalar(n, -0.5)])]


@tf_op("Square")
def square(n: TfNode):
    return [n.op("Multiply", [n.input(0), n.input(0)])]


@tf_op("Reciprocal", "Inv")
def reciprocal(n: TfNode):
    return [n.op("Power", [n.input(0), _scalar(n, -1.0)])]  # as ovc and MO write it


@tf_op("Swish")
def swish(n: TfNode):
    return [n.op("Swish", [n.input(0)])]


@tf_op("AddN")
def add_n(n: TfNode):
    y = n.input(0)
    for i in range(1, n.num_inputs):
        y = n.op("Add", [y, n.input(i)])
    return [y]


@tf_op("Cast")
def cast(n: TfNode):
    if is_complex(n, "SrcT") or is_complex(n, "DstT"):
        return [complex_cast(n)]
    return [n.op("Convert", [n.input(0)], destination_type=n.attr("DstT"))]


@tf_op("Erfc")
def erfc(n: TfNode):
    # Keras GELU (approximate=False) is 0.5 * x * erfc(-x / sqrt(2))
    return [n.op("Subtract", [_scalar(n, 1.0), n.op("Erf", [n.input(0)])])]


@tf_op("SelectV2")
def select_v2(n: TfNode):
    return [n.op("Select", [n.input(0), n.input(1), n.input(2)], auto_broadcast="numpy")]


@tf_op("ZerosLike", "OnesLike")
def fill_like(n: TfNode):
    value = _scalar(n, 1 if n.op_type == "OnesLike" else 0)
    return [n.op("Broadcast", [value, n.op("ShapeOf", [n.input(0)])], mode="numpy")]


@tf_op("Log1p")
def log1p(n: TfNode):
    return [n.op("Log", [n.op("Add", [n.input(0), _scalar(n, 1.0)])])]


@tf_op("Expm1")
def expm1(n: TfNode):
    return [n.op("Subtract", [n.op("Exp", [n.input(0)]), _scalar(n, 1.0)])]


@tf_op("ClipByValue")
def clip_by_value(n: TfNode):
    return [n.op("Minimum", [n.op("Maximum", [n.input(0), n.input(1)]), n.input(2)])]


def _zero_where(n: TfNode, zero_at: int, value):
    """value, but 0 where input `zero_at` is 0 (TF's DivNoNan and Xlogy)."""
    is_zero = n.op("Equal", [n.input(zero_at), _scalar(n, 0.0)])
    return [n.op("Select", [is_zero, _scalar(n, 0.0), value], auto_broadcast="numpy")]


@tf_op("DivNoNan")
def div_no_nan(n: TfNode):
    return _zero_where(n, 1, n.op("Divide", [n.input(0), n.input(1)]))


@tf_op("Xlogy")
def xlogy(n: TfNode):
    return _zero_where(n, 0, n.op("Multiply", [n.input(0), n.op("Log", [n.input(1)])]))


@tf_op("Atan2")
def atan2(n: TfNode):
    """Atan(y / x), moved by pi into the left half-plane."""
    y, x = n.input(0), n.input(1)
    angle = n.op("Atan", [n.op("Divide", [y, x])])
    half_turn = n.op("Select", [n.op("GreaterEqual", [y, _scalar(n, 0.0)]), _scalar(n, np.pi),
                                _scalar(n, -np.pi)], auto_broadcast="numpy")
    left = n.op("Less", [x, _scalar(n, 0.0)])
    angle = n.op("Add", [angle, n.op("Select", [left, half_turn, _scalar(n, 0.0)],
                                     auto_broadcast="numpy")])
    # on the y axis (x = +-0): sign(y) * pi / 2, 0 at the origin
    axis = n.op("Multiply", [n.op("Sign", [y]), _scalar(n, np.pi / 2)])
    return [n.op("Select", [n.op("Equal", [x, _scalar(n, 0.0)]), axis, angle],
                 auto_broadcast="numpy")]


@tf_op("L2Loss")
def l2_loss(n: TfNode):
    x = n.input(0)
    total = n.op("ReduceSum", [n.op("Multiply", [x, x]),
                               n.op("Range", [n.const(0, np.int64), n.op("Squeeze", [
                                   n.op("ShapeOf", [n.op("ShapeOf", [x])])]),
                                   n.const(1, np.int64)], output_type=np.dtype(np.int64))],
                   keep_dims=False)
    return [n.op("Multiply", [total, _scalar(n, 0.5)])]
