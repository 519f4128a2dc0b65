"""Const (Constant-1): a tensor stored in the .bin. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/constant-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op


class Const(Op):
    op = type = "Const"
    version = "opset1"
    in_ports_count = 0
    # element_type, shape, offset and size are written by the emitter from `value`
    attr_types = {}

    @classmethod
    def infer(cls, node) -> None:
        value = np.asarray(node.value)
        node.out_port(0).data.set_value(value)
        node.out_port(0).data.set_data_type(value.dtype)

    @classmethod
    def evaluate(cls, attrs, inputs):
        return [np.asarray(attrs["value"])]
