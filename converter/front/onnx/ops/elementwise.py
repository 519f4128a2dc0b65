"""Elementwise ONNX ops: arithmetic, comparison, logic, math functions and activations."""

from __future__ import annotations

from functools import reduce

import numpy as np

from converter.front import mo_front
from converter.front.onnx.ops.movement import known_dtype
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

# ONNX ops that map one-to-one, inputs in order, onto an opset op without attributes
_SAME_INPUTS = {
    "Abs": "Abs", "Acos": "Acos", "Acosh": "Acosh", "Add": "Add", "And": "LogicalAnd",
    "Asin": "Asin", "Asinh": "Asinh", "Atan": "Atan", "Atanh": "Atanh",
    "BitwiseAnd": "BitwiseAnd", "BitwiseNot": "BitwiseNot", "BitwiseOr": "BitwiseOr",
    "BitwiseXor": "BitwiseXor", "Ceil": "Ceiling", "Cos": "Cos",
    "Cosh": "Cosh", "Equal": "Equal", "Erf": "Erf", "Exp": "Exp", "Floor": "Floor",
    "Greater": "Greater", "GreaterOrEqual": "GreaterEqual", "HardSwish": "HSwish",
    "IsNaN": "IsNaN", "Less": "Less", "LessOrEqual": "LessEqual", "Log": "Log", "Mish": "Mish",
    "Mul": "Multiply", "Neg": "Negative", "Not": "LogicalNot", "Or": "LogicalOr",
    "Relu": "ReLU", "Sigmoid": "Sigmoid", "Sign": "Sign", "Sin": "Sin", "Sinh": "Sinh",
    "Softplus": "SoftPlus", "Softsign": "SoftSign", "Sub": "Subtract",
    "Tan": "Tan", "Tanh": "Tanh", "Where": "Select", "Xor": "LogicalXor",
}


def _same_inputs(target: str):
    def translate(n: OnnxNode):
        return [n.op(target, [n.input(i) for i in range(n.num_inputs)])]

    return translate


for _onnx, _target in _SAME_INPUTS.items():
    onnx_op(_onnx)(_same_inputs(_target))


def _like(n: OnnxNode, value, x: Port) -> Port:
    """A constant in x's element type (folded once types are known)."""
    return n.op("ConvertLike", [n.const(np.asarray(value, dtype=np.float64)), x])


def _inputs(n: OnnxNode) -> list[Port]:
    return [n.input(i) for i in range(n.num_inputs) if n.has_input(i)]


@onnx_op("Div")
def div(n: OnnxNode):
    # ONNX integer division truncates toward zero
    return [n.op("Divide", [n.input(0), n.input(1)], m_pythondiv=False)]


@onnx_op("Pow")
def pow_(n: OnnxNode):
    x = n.input(0)
    return [n.op("Power", [x, n.op("ConvertLike", [n.input(1), x])])]


@onnx_op("Mod")
def mod(n: OnnxNode):
    x, y = n.input(0), n.input(1)
    if n.attr("fmod", 0):
        return [n.op("Mod", [x, y])]
    dtype = known_dtype(x)
    r = n.op("FloorMod", [x, y])
    return [r if dtype is None or dtype.kind != "f" else _floor_mod_edges(n, x, y, r)]


def _floor_mod_edges(n: OnnxNode, x: Port, y: Port, r: Port) -> Port:
    """Python's float % where OpenVINO's FloorMod differs: by an infinite divisor a finite x
    stays (same sign, or zero) or becomes the divisor; a zero takes the divisor's sign."""
    zero = n.op("ConvertLike", [np.float32(0), x])
    sign_y = n.op("Sign", [y])
    same = n.op("LogicalOr", [n.op("Equal", [x, zero]), n.op("Greater", [
        n.op("Multiply", [n.op("Sign", [x]), sign_y]), zero])])
    finite_x = n.op("LogicalNot", [n.op("LogicalOr", [n.op("IsInf", [x]), n.op("IsNaN", [x])])])
    by_inf = n.op("LogicalAnd", [n.op("IsInf", [y]), finite_x])
    r = n.op("Select", [by_inf, n.op("Select", [same, x, y]), r])
    return n.op("Select", [n.op("Equal", [r, zero]), n.op("Multiply", [zero, sign_y]), r])


@onnx_op("BitShift")
def bit_shift(n: OnnxNode):
    """A shift by the type's width or more, or by a negative amount, moves every bit out (0, or
    the sign for a signed right shift), as ONNX says; OpenVINO leaves it undefined."""
    left = n.attr("direction") == "LEFT"
    x, shift = n.input(0), n.input(1)
    dtype = known_dtype(x)
    target = "BitwiseLeftShift" if left else "BitwiseRightShift"
    if dtype is None:
        return [n.op(target, [x, shift])]
    width = n.op("ConvertLike", [np.int64(dtype.itemsize * 8), shift])
    zero = n.op("ConvertLike", [np.int64(0), shift])
    outside = n.op("LogicalOr", [n.op("Less", [shift, zero]),
                                 n.op("GreaterEqual", [shift, width])])
    amount = n.op("Select", [outside, zero, shift])
    shifted = n.op(target, [x, amount])
    if not left and dtype.kind == "u":  # OpenVINO's CPU shifts unsigned right arithmetically:
        # clear the top `amount` bits, all ones << (width - 1 - amount) << 1
        ones = n.const(np.array(np.iinfo(dtype).max, dtype))
        last = n.op("ConvertLike", [np.int64(dtype.itemsize * 8 - 1), amount])
        rest = n.op("ConvertLike", [n.op("Subtract", [last, amount]), x])
        top = n.op("BitwiseLeftShift", [n.op("BitwiseLeftShift", [ones, rest]),
                                        n.const(np.array(1, dtype))])
        shifted = n.op("BitwiseAnd", [shifted, n.op("BitwiseNot", [top])])
    if left or dtype.kind == "u":
        filled = n.op("ConvertLike", [np.int64(0), x])
    else:  # the sign in every bit
        filled = n.op("BitwiseRightShift", [x, n.op("ConvertLike", [
            np.int64(dtype.itemsize * 8 - 1), x])])
    return [n.op("Select", [outside, filled, shifted])]


def _variadic(target: str, operation: str | None = None):
    """operation: MO's EltwiseN operation (shown to legacy passes before FrontStart)."""

    def translate(n: OnnxNode):
        y = reduce(lambda a, b: n.op(target, [a, b]), _inputs(n))
        if operation and len(_inputs(n)) == 2:
            y.node[mo_front.MO_FRONT] = mo_front.extracted("EltwiseN", None, 2,
                                                           operation=operation)
        return [y]

    return translate


onnx_op("Sum")(_variadic("Add", "sum"))
onnx_op("Max")(_variadic("Maximum", "max"))
onnx_op("Min")(_variadic("Minimum", "min"))


@onnx_op("Sqrt")
def sqrt(n: OnnxNode):
    y = n.op("Sqrt", [n.input(0)])  # (MO's AttributedPower, to legacy passes before FrontStart)
    y.node[mo_front.MO_FRONT] = mo_front.extracted("AttributedPower", "Power", 1, power=0.5,
                                                   scale=1, shift=0)
    return [y]


@onnx_op("Mean")
def mean(n: OnnxNode):
    inputs = _inputs(n)
    total = _variadic("Add")(n)[0]
    return [n.op("Divide", [total, _like(n, len(inputs), inputs[0])])]


@onnx_op("Reciprocal")
def reciprocal(n: OnnxNode):
    x = n.input(0)
    return [n.op("Divide", [_like(n, 1, x), x])]


@onnx_op("Round")
def round_(n: OnnxNode):
    return [n.op("Round", [n.input(0)], mode="half_to_even")]


@onnx_op("IsInf")
def is_inf(n: OnnxNode):
    return [n.op("IsInf", [n.input(0)], detect_negative=bool(n.attr("detect_negative", 1)),
                 detect_positive=bool(n.attr("detect_positive", 1)))]


# -- activations ------------------------------------------------------------------------------
@onnx_op("HardSigmoid")
def hard_sigmoid(n: OnnxNode):
    x = n.input(0)
    alpha, beta = _like(n, n.attr("alpha", 0.2), x), _like(n, n.attr("beta", 0.5), x)
    return [n.op("HardSigmoid", [x, alpha, beta])]


@onnx_op("Elu")
def elu(n: OnnxNode):
    return [n.op("Elu", [n.input(0)], alpha=float(n.attr("alpha", 1.0)))]


@onnx_op("Selu")
def selu(n: OnnxNode):
    x = n.input(0)
    alpha = _like(n, n.attr("alpha", 1.67326319217681884765625), x)
    gamma = _like(n, n.attr("gamma", 1.05070102214813232421875), x)
    return [n.op("Selu", [x, alpha, gamma])]


@onnx_op("Celu")
def celu(n: OnnxNode):
    # alpha * elu(x / alpha)
    x, alpha = n.input(0), float(n.attr("alpha", 1.0))
    if alpha == 1.0:
        return [n.op("Elu", [x], alpha=1.0)]
    scaled = n.op("Elu", [n.op("Divide", [x, _like(n, alpha, x)])], alpha=1.0)
    return [n.op("Multiply", [scaled, _like(n, alpha, x)])]


@onnx_op("LeakyRelu")
def leaky_relu(n: OnnxNode):
    x = n.input(0)
    return [n.op("PReLU", [x, _like(n, [n.attr("alpha", 0.01)], x)])]


@onnx_op("PRelu")
def prelu(n: OnnxNode):
    x, slope = n.input(0), n.input(1)
    value = n.const_value(1)
    if value is not None and (value.ndim != 1 or value.size == 1):
        return [n.op("PReLU", [x, slope])]
    # a 1D slope broadcasts over the last axis in ONNX, over channels in PReLU
    negative = n.op("Less", [x, _like(n, 0, x)])
    return [n.op("Select", [negative, n.op("Multiply", [x, slope]), x])]


@onnx_op("ThresholdedRelu")
def thresholded_relu(n: OnnxNode):
    x = n.input(0)
    above = n.op("Greater", [x, _like(n, n.attr("alpha", 1.0), x)])
    y = n.op("Multiply", [x, n.op("ConvertLike", [above, x])])  # as ovc and MO write it
    y.node[mo_front.MO_FRONT] = mo_front.extracted("ThresholdedRelu", None, 1, "opset1",
                                                   alpha=float(n.attr("alpha", 1.0)))
    return [y]


@onnx_op("Gelu")
def gelu(n: OnnxNode):
    mode = "tanh" if n.attr("approximate", "none") == "tanh" else "erf"
    return [n.op("Gelu", [n.input(0)], approximation_mode=mode)]


@onnx_op("Shrink")
def shrink(n: OnnxNode):
    x, bias, lambd = n.input(0), n.attr("bias", 0.0), n.attr("lambd", 0.5)
    below = n.op("Less", [x, _like(n, -lambd, x)])
    above = n.op("Greater", [x, _like(n, lambd, x)])
    inner = n.op("Select", [above, n.op("Subtract", [x, _like(n, bias, x)]), _like(n, 0, x)])
    return [n.op("Select", [below, n.op("Add", [x, _like(n, bias, x)]), inner])]


def _swish(n: OnnxNode, x: Port) -> Port:
    return n.op("Swish", [x, _like(n, n.attr("alpha", 1.0), x)])


@onnx_op("Swish")
def swish(n: OnnxNode):
    return [_swish(n, n.input(0))]


@onnx_op("SwiGLU")
def swiglu(n: OnnxNode):
    return [n.op("Multiply", [_swish(n, n.input(0)), n.input(1)])]


def _bounded(n: OnnxNode, low: Port, high: Port) -> Port:
    """Clamp fed its bounds on inputs 1 and 2 until the back phase, as MO's front and middle
    phases had it (see converter.back.clamp_bounds)."""
    return n.op("Clamp", [n.input(0), low, high], in_ports_count=3)


def _clip(n: OnnxNode, low, high) -> Port:
    """Maximum/Minimum with the bounds given."""
    x = n.input(0)
    if low is not None:
        x = n.op("Maximum", [x, low])
    if high is not None:
        x = n.op("Minimum", [x, high])
    return x


@onnx_op("Clip")
def clip_attrs(n: OnnxNode):
    low, high = n.attr("min"), n.attr("max")
    if low is None or high is None:
        x = n.input(0)
        low = None if low is None else _like(n, low, x)
        high = None if high is None else _like(n, high, x)
        return [_clip(n, low, high)]
    bounds = (n.const(np.float32(low), name=f"{n.name}/min"),
              n.const(np.float32(high), name=f"{n.name}/max"))
    return [_bounded(n, *bounds)]


@onnx_op("Clip", since=11)
def clip(n: OnnxNode):
    """A Clamp when both bounds are float constants, else Maximum/Minimum."""
    bounds = [n.input(i) for i in (1, 2)]
    values = [n.const_value(i) if n.has_input(i) else None for i in (1, 2)]
    if all(v is not None and np.asarray(v).dtype.kind == "f" for v in values):
        return [_bounded(n, *bounds)]
    return [_clip(n, *bounds)]


# -- Dropout: identity at inference, plus an all-true mask when asked for ----------------------
@onnx_op("Dropout")
def dropout(n: OnnxNode):
    x = n.input(0)
    if n.num_outputs < 2:
        return [x]
    shape = n.op("ShapeOf", [x], output_type=np.dtype(np.int64))
    mask = n.op("Broadcast", [n.const(np.array(True)), shape])
    if n.opset < 10:
        mask = n.op("ConvertLike", [mask, x])
    return [x, mask]

