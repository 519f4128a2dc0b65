"""BatchNormInference-5: per-channel (axis 1) normalization with given statistics. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/normalization/batch-norm-inference-5.html"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["BatchNormInference", "BatchNormInference1"]


class BatchNormInference(Op):
    op = type = "BatchNormInference"
    version = "opset5"
    in_ports_count = 5
    attr_types = {"epsilon": "float"}
    defaults = {"epsilon": 1e-5}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, gamma, beta, mean, var = inputs
        shape = (1, -1) + (1,) * (x.ndim - 2)
        scale = gamma / np.sqrt(var + np.asarray(attrs["epsilon"], var.dtype))
        shift = beta - mean * scale
        return [x * scale.reshape(shape) + shift.reshape(shape)]


class BatchNormInference1(BatchNormInference):
    """BatchNormInference-1, as IR from OpenVINO's tools may hold it: the same op with its
    inputs ordered gamma, beta, data, mean, variance."""

    op = "BatchNormInference1"
    type = "BatchNormInference"
    version = "opset1"

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [shapes[2]]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[2]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        gamma, beta, x, mean, var = inputs
        return super().evaluate(attrs, [x, gamma, beta, mean, var])
