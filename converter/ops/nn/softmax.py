"""Softmax-8 and LogSoftmax-5 along one axis. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/activation/softmax-8.html"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["LogSoftmax", "Softmax"]


def _shifted(x: np.ndarray, axis: int) -> np.ndarray:
    return x - np.max(x, axis=axis, keepdims=True)


class Softmax(Op):
    """The graph types it "SoftMax", as MO's graph did and OpenVINO's serializer spells both
    versions (legacy passes match that type; the IR is written so)."""

    op = "Softmax"
    type = "SoftMax"
    version = "opset8"
    in_ports_count = 1
    attr_types = {"axis": "int"}
    defaults = {"axis": 1}

    @classmethod
    def evaluate(cls, attrs, inputs):
        e = _shifted(inputs[0], attrs["axis"])  # a fresh array: exp and the division in place
        e = e if e.dtype.kind == "f" else e.astype(np.float64)
        np.exp(e, out=e)
        e /= e.sum(axis=attrs["axis"], keepdims=True)
        return [e]


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
