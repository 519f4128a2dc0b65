"""Elementwise ONNX ops that map one-to-one onto opset ops."""

from __future__ import annotations

from converter.front.onnx.translator import OnnxNode, onnx_op

_BINARY = {"Add": "Add"}
_UNARY = {"Relu": "ReLU"}


def _same_inputs(target: str):
    def translate(n: OnnxNode):
        return [n.op(target, [n.input(i) for i in range(n.num_inputs)])]

    return translate


for _onnx, _target in {**_BINARY, **_UNARY}.items():
    onnx_op(_onnx)(_same_inputs(_target))
