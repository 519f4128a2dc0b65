"""BatchNormInference-5: per-channel (axis 1) normalization with given statistics. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/normalization/batch-norm-inference-5.html"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op

__all__ = ["BatchNormInference", "BatchNormInference1", "batch_norm_affine"]


def batch_norm_affine(epsilon: float, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray,
                      var: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
    """(scale, shift) per channel, shaped to broadcast over axis 1 of a rank-`rank` tensor."""
    shape = (1, -1) + (1,) * (rank - 2)
    scale = gamma / np.sqrt(var + np.asarray(epsilon, var.dtype))
    return scale.reshape(shape), (beta - mean * scale).reshape(shape)


class BatchNormInference(Op):
    op = type = "BatchNormInference"
    version = "opset5"
    in_ports_count = 5
    attr_types = {"epsilon": "float"}
    defaults = {"epsilon": 1e-5}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, gamma, beta, mean, var = inputs
        scale, shift = batch_norm_affine(attrs["epsilon"], gamma, beta, mean, var, x.ndim)
        return [x * scale + shift]

    @classmethod
    def inplace(cls, attrs, values):
        gamma, beta, mean, var = values[1:5]

        def normalize(x: np.ndarray) -> None:
            scale, shift = batch_norm_affine(attrs["epsilon"], gamma, beta, mean, var, x.ndim)
            np.add(np.multiply(x, scale, out=x), shift, out=x)
        return normalize


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

    @classmethod
    def inplace(cls, attrs, values):
        return None  # the data is input 2
