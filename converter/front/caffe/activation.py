"""Built-in translators of Caffe's activation layers (one function per layer type)."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.caffe.translator import CaffeNode, caffe_op


@caffe_op("ReLU")
def relu(n: CaffeNode):
    slope = float(n.attr("negative_slope"))
    if slope == 0:
        return [n.op("ReLU", [n.input(0)])]
    return [n.op("PReLU", [n.input(0), n.const([slope], np.float32)])]


@caffe_op("ReLU6")
def relu6(n: CaffeNode):
    """min(max(x, 0), n), n 6 unless relu6_param sets it."""
    return [n.op("Clamp", [n.input(0)], min=0.0, max=float(n.attr("n", 6.0)))]


@caffe_op("PReLU")
def prelu(n: CaffeNode):
    return [n.op("PReLU", [n.input(0), n.const(n.blob(0).ravel())])]


@caffe_op("ELU")
def elu(n: CaffeNode):
    return [n.op("Elu", [n.input(0)], alpha=float(n.attr("alpha")))]


@caffe_op("Sigmoid")
def sigmoid(n: CaffeNode):
    return [n.op("Sigmoid", [n.input(0)])]


@caffe_op("TanH")
def tanh(n: CaffeNode):
    return [n.op("Tanh", [n.input(0)])]


@caffe_op("AbsVal")
def absval(n: CaffeNode):
    return [n.op("Abs", [n.input(0)])]


@caffe_op("BNLL")
def bnll(n: CaffeNode):
    return [n.op("SoftPlus", [n.input(0)])]


@caffe_op("Clip")
def clip(n: CaffeNode):
    return [n.op("Clamp", [n.input(0)], min=float(n.attr("min")), max=float(n.attr("max")))]


@caffe_op("Power")
def power(n: CaffeNode):
    """y = (shift + scale * x) ^ power."""
    y = n.input(0)
    scale, shift, exponent = float(n.attr("scale")), float(n.attr("shift")), float(n.attr("power"))
    if scale != 1:
        y = n.op("Multiply", [y, n.const(scale, np.float32)])
    if shift != 0:
        y = n.op("Add", [y, n.const(shift, np.float32)])
    if exponent != 1:
        y = n.op("Power", [y, n.const(exponent, np.float32)])
        if scale == 1 and shift == 0:  # (MO's form, to legacy passes)
            y.node[mo_front.MO_FRONT] = mo_front.extracted(
                "AttributedPower", "Power", 1, power=exponent, scale=scale, shift=shift)
    return [y]


@caffe_op("Dropout")
def dropout(n: CaffeNode):
    return [n.input(0)]


@caffe_op("Exp")
def exp(n: CaffeNode):
    """y = base ^ (shift + scale * x), base e when -1."""
    y = n.input(0)
    base, scale_, shift = float(n.attr("base")), float(n.attr("scale")), float(n.attr("shift"))
    if base != -1:
        scale_ *= float(np.log(base))
        shift *= float(np.log(base))
    if scale_ != 1:
        y = n.op("Multiply", [y, n.const(scale_, np.float32)])
    if shift != 0:
        y = n.op("Add", [y, n.const(shift, np.float32)])
    return [n.op("Exp", [y])]


@caffe_op("Swish")
def swish(n: CaffeNode):
    return [n.op("Swish", [n.input(0), n.const(float(n.attr("beta")), np.float32)])]
