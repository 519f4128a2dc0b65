"""Softmax-8 and LogSoftmax-5 along one axis. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/activation/softmax-8.html"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["LogSoftmax", "Softmax"]


def _shifted(x: np.ndarray, axis: int) -> np.ndarray:
    return x - np.max(x, axis=axis, keepdims=True)


class Softmax(Op):
    op = type = "Softmax"
    version = "opset8"
    in_ports_count = 1
    attr_types = {"axis": "int"}
    defaults = {"axis": 1}

    @classmethod
    def evaluate(cls, attrs, inputs):
        e = np.exp(_shifted(inputs[0], attrs["axis"]))
        return [e / e.sum(axis=attrs["axis"], keepdims=True)]


class LogSoftmax(Op):
    """https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/activation/log-soft-max-5.html"""

    op = type = "LogSoftmax"
    version = "opset5"
    in_ports_count = 1
    attr_types = {"axis": "int"}
    defaults = {"axis": 1}

    @classmethod
    def evaluate(cls, attrs, inputs):
        z = _shifted(inputs[0], attrs["axis"])
        return [z - np.log(np.exp(z).sum(axis=attrs["axis"], keepdims=True))]
