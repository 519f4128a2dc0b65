"""MVN-6, NormalizeL2-1, GRN-1 and GroupNormalization-12. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/normalization/mvn-6.html"""

from __future__ import annotations

import numpy as np

from converter.ops.native import kernels
from converter.ops.op import Op

__all__ = ["GRN", "GroupNormalization", "MVN", "NormalizeL2"]


def _axes(values: np.ndarray, rank: int) -> tuple[int, ...]:
    return tuple(sorted({int(a) % rank for a in np.ravel(values)}))


_DOT_ROWS_UP_TO = 8192  # longer rows: numpy's pairwise sum, which keeps its precision


def _mean_square(centered: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Mean of squares over axes, kept per reduced row; over the last axis alone (a LayerNorm)
    of float32/float64 by row dot products, without a squared copy of the tensor."""
    count = centered.shape[-1] if centered.ndim else 0
    if (axes != (centered.ndim - 1,) or centered.dtype not in (np.float32, np.float64)
            or not 0 < count <= _DOT_ROWS_UP_TO):
        return np.mean(np.square(centered), axis=axes, keepdims=True)
    total = np.einsum("...i,...i->...", centered, centered)
    return (total / np.asarray(count, total.dtype))[..., None]


def mvn(x: np.ndarray, axes: tuple[int, ...], eps: float, inside: bool = True,
        normalize_variance: bool = True) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) over axes ("inside_sqrt"), or / (sqrt(var) + eps)."""
    centered = x - x.mean(axis=axes, keepdims=True)
    if not normalize_variance:
        return centered
    var = _mean_square(centered, axes)
    eps = np.asarray(eps, x.dtype)
    denominator = np.sqrt(var + eps) if inside else np.sqrt(var) + eps
    if centered.dtype != np.result_type(centered, denominator):
        return centered / denominator
    centered /= denominator  # a fresh array: divided in place
    return centered


class MVN(Op):
    op = type = "MVN"
    version = "opset6"
    in_ports_count = 2
    attr_types = {"normalize_variance": "bool", "eps": "float", "eps_mode": "str"}
    defaults = {"normalize_variance": True, "eps": 1e-9, "eps_mode": "inside_sqrt"}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        return [mvn(x, _axes(inputs[1], x.ndim), attrs["eps"], attrs["eps_mode"] == "inside_sqrt",
                    attrs["normalize_variance"])]

    @classmethod
    def plan(cls, attrs, values, used):
        """Over the last axis alone (a LayerNorm) of float32, the native kernel's two passes
        where there is one."""
        native = kernels() if values[1] is not None and attrs["normalize_variance"] else None
        if native is None:
            return super().plan(attrs, values, used)

        def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
            x = inputs[0]
            if x.dtype != np.float32 or x.size == 0 or _axes(values[1], x.ndim) != (x.ndim - 1,):
                return cls.compute(attrs, inputs)
            return [native.layer_norm(np.ascontiguousarray(x), attrs["eps"],
                                      attrs["eps_mode"] == "inside_sqrt")]
        return run


class NormalizeL2(Op):
    """https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/normalization/normalize-l2-1.html"""

    op = type = "NormalizeL2"
    version = "opset1"
    in_ports_count = 2
    attr_types = {"eps": "float", "eps_mode": "str"}
    defaults = {"eps": 1e-10, "eps_mode": "add"}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        total = np.sum(np.square(x), axis=_axes(inputs[1], x.ndim), keepdims=True)
        eps = np.asarray(attrs["eps"], x.dtype)
        total = total + eps if attrs["eps_mode"] == "add" else np.maximum(total, eps)
        return [x / np.sqrt(total)]


class GRN(Op):
    """https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/normalization/grn-1.html:
    x / sqrt(sum of squares over channels (axis 1) + bias)."""

    op = type = "GRN"
    version = "opset1"
    attr_types = {"bias": "float"}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        total = np.sum(np.square(x), axis=1, keepdims=True) + np.asarray(attrs["bias"], x.dtype)
        return [x / np.sqrt(total)]


class GroupNormalization(Op):
    """https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/normalization/group-normalization-12.html"""

    op = type = "GroupNormalization"
    version = "opset12"
    in_ports_count = 3
    attr_types = {"num_groups": "int", "epsilon": "float"}
    defaults = {"num_groups": 1, "epsilon": 1e-5}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, scale, bias = inputs
        grouped = x.reshape(x.shape[0], attrs["num_groups"], -1)
        y = mvn(grouped, (2,), attrs["epsilon"]).reshape(x.shape)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        return [y * scale.reshape(shape) + bias.reshape(shape)]
