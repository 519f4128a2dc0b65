"""Gather-8: slices along an axis by indices (negative ones count from the end), with batch dims.
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/gather-8.html"""

from __future__ import annotations

import math

import numpy as np

from converter.graph.shape import DYN, normalize_axis
from converter.ops.op import Op

__all__ = ["Gather"]


def _gather(data: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int) -> np.ndarray:
    """Vectorised Gather: batches flattened to N, out-of-range indices give zeros."""
    b = batch_dims
    size = data.shape[axis]
    idx = np.asarray(indices, dtype=np.int64)
    idx = np.where(idx < 0, idx + size, idx)
    valid = (idx >= 0) & (idx < size)
    batch, pre, post = data.shape[:b], data.shape[b:axis], data.shape[axis + 1:]
    n, p, q = math.prod(batch), math.prod(pre), math.prod(post)
    flat_data = data.reshape(n, p, size, q)
    flat_idx = np.where(valid, idx, 0).reshape(n, -1)
    taken = flat_data[np.arange(n)[:, None], :, flat_idx, :]  # (n, k, p, q)
    if not valid.all():
        taken = taken * valid.reshape(n, -1, 1, 1).astype(data.dtype)
    out = taken.transpose(0, 2, 1, 3)
    return out.reshape(batch + pre + idx.shape[b:] + post)


def _batch_dims(attrs: dict, indices_rank: int) -> int:
    b = attrs["batch_dims"]
    return b + indices_rank if b < 0 else b


class Gather(Op):
    op = type = "Gather"
    version = "opset8"
    in_ports_count = 3
    attr_types = {"batch_dims": "int"}
    defaults = {"batch_dims": 0}

    @classmethod
    def check_inputs(cls, attrs, shapes, types, values):
        """Constant indices must lie in [-size, size) of a known axis (ONNX and TF refuse the
        rest; Gather-8 would silently give zeros)."""
        data, idx, axis = shapes[0], values[1], values[2] if len(values) > 2 else None
        if axis is not None and np.size(axis) != 1:
            return f"the axis input must hold one value, not {np.size(axis)}"
        if data is None or idx is None or axis is None or np.size(idx) == 0:
            return None
        axis = np.asarray(axis).item()
        size = data[normalize_axis(int(axis), len(data))]
        idx = np.asarray(idx, dtype=np.int64)
        if size >= 0 and (idx.min() < -size or idx.max() >= size):
            bad = int(idx.max() if idx.max() >= size else idx.min())
            return f"constant index {bad} is out of range for axis {int(axis)} of size {size}"
        return None

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        data, idx = shapes[0], shapes[1]
        if data is None or idx is None:
            return [None]
        b = _batch_dims(attrs, len(idx))
        if values[2] is None:
            return [(DYN,) * (len(data) + len(idx) - 1 - b)]
        axis = normalize_axis(int(values[2]), len(data))
        return [data[:axis] + idx[b:] + data[axis + 1:]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, idx = inputs[0], np.asarray(inputs[1])
        axis = normalize_axis(int(inputs[2]), data.ndim)
        return [_gather(data, idx, axis, _batch_dims(attrs, idx.ndim))]
