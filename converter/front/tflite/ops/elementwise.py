"""TensorFlow Lite translators for elementwise ops: arithmetic (fused activations are applied
by the translator's finish), comparisons, activations, Cast."""

from __future__ import annotations

import numpy as np

from converter.front.tflite.translator import TfliteNode, tflite_op

# builtin -> opset op, same inputs
_BINARY = {
    "ADD": "Add", "SUB": "Subtract", "MUL": "Multiply", "DIV": "Divide", "MAXIMUM": "Maximum",
    "MINIMUM": "Minimum", "POW": "Power", "SQUARED_DIFFERENCE": "SquaredDifference",
    "FLOOR_MOD": "FloorMod", "LESS": "Less", "LESS_EQUAL": "LessEqual", "GREATER": "Greater",
    "GREATER_EQUAL": "GreaterEqual", "EQUAL": "Equal", "NOT_EQUAL": "NotEqual",
    "LOGICAL_AND": "LogicalAnd", "LOGICAL_OR": "LogicalOr", "BITWISE_XOR": "BitwiseXor",
    "RIGHT_SHIFT": "BitwiseRightShift",
}
_UNARY = {
    "LOGISTIC": "Sigmoid", "TANH": "Tanh", "RELU": "ReLU", "HARD_SWISH": "HSwish", "EXP": "Exp",
    "LOG": "Log", "SQRT": "Sqrt", "ABS": "Abs", "NEG": "Negative", "FLOOR": "Floor",
    "CEIL": "Ceiling", "SIN": "Sin", "COS": "Cos", "ELU": "Elu", "SIGN": "Sign",
    "LOGICAL_NOT": "LogicalNot",
}
_CLAMPS = {"RELU6": (0.0, 6.0), "RELU_N1_TO_1": (-1.0, 1.0), "RELU_0_TO_1": (0.0, 1.0)}


def _binary(kind: str):
    def translate(n: TfliteNode):
        return [n.op(kind, [n.input(0), n.input(1)])]

    return translate


def _unary(kind: str):
    def translate(n: TfliteNode):
        attrs = {"alpha": 1.0} if kind == "Elu" else {}
        return [n.op(kind, [n.input(0)], **attrs)]

    return translate


def _clamp(bounds: tuple[float, float]):
    def translate(n: TfliteNode):
        return [n.op("Clamp", [n.input(0)], min=bounds[0], max=bounds[1])]

    return translate


for _name, _kind in _BINARY.items():
    tflite_op(_name)(_binary(_kind))
for _name, _kind in _UNARY.items():
    tflite_op(_name)(_unary(_kind))
for _name, _bounds in _CLAMPS.items():
    tflite_op(_name)(_clamp(_bounds))


def _float(n: TfliteNode, value: float) -> np.ndarray:
    return np.asarray(value, n.out_tensor().dtype if n.out_tensor().dtype.kind == "f"
                      else np.float32)


@tflite_op("FLOOR_DIV")
def floor_div(n: TfliteNode):
    q = n.op("Divide", [n.input(0), n.input(1)], m_pythondiv=True)
    return [q if n.out_tensor().dtype.kind in "iu" else n.op("Floor", [q])]


@tflite_op("RSQRT")
def rsqrt(n: TfliteNode):
    return [n.op("Divide", [_float(n, 1.0), n.op("Sqrt", [n.input(0)])])]


@tflite_op("SQUARE")
def square(n: TfliteNode):
    return [n.op("Multiply", [n.input(0), n.input(0)])]


@tflite_op("LEAKY_RELU")
def leaky_relu(n: TfliteNode):
    return [n.op("PReLU", [n.input(0), _float(n, n.attr("alpha", 0.2)).reshape(1)])]


@tflite_op("PRELU")
def prelu(n: TfliteNode):
    """max(x, 0) + alpha * min(x, 0), alpha broadcast numpy-style (PReLU's is per channel)."""
    x = n.input(0)
    negative = n.op("Multiply", [n.input(1), n.op("Minimum", [x, _float(n, 0.0)])])
    return [n.op("Add", [n.op("Maximum", [x, _float(n, 0.0)]), negative])]


@tflite_op("GELU")
def gelu(n: TfliteNode):
    mode = "tanh" if n.attr("approximate", False) else "erf"
    return [n.op("Gelu", [n.input(0)], approximation_mode=mode)]


@tflite_op("ROUND")
def round_(n: TfliteNode):
    return [n.op("Round", [n.input(0)], mode="half_to_even")]


@tflite_op("CAST")
def cast(n: TfliteNode):
    return [n.op("Convert", [n.input(0)], destination_type=n.out_tensor().dtype)]


@tflite_op("ADD_N")
def add_n(n: TfliteNode):
    total = n.input(0)
    for i in range(1, n.num_inputs):
        total = n.op("Add", [total, n.input(i)])
    return [total]


@tflite_op("SELECT", "SELECT_V2")
def select(n: TfliteNode):
    return [n.op("Select", [n.input(0), n.input(1), n.input(2)])]


@tflite_op("ZEROS_LIKE")
def zeros_like(n: TfliteNode):
    zero = np.zeros((), n.out_tensor().dtype)
    return [n.op("Broadcast", [zero, n.op("ShapeOf", [n.input(0)])])]
