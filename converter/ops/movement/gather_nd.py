"""GatherND-8: gathers elements or slices by index tuples, keeping batch dims. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/gather-nd-8.html"""

from __future__ import annotations

import math

import numpy as np

from converter.ops.op import Op

__all__ = ["GatherND", "nd_index"]


def nd_index(shape: tuple[int, ...], indices: np.ndarray) -> tuple[np.ndarray, ...]:
    """Split index tuples (last axis) into per-axis arrays, negative ones wrapped."""
    idx = np.asarray(indices, dtype=np.int64)
    k = idx.shape[-1]
    dims = np.asarray(shape[:k], dtype=np.int64)
    idx = np.where(idx < 0, idx + dims, idx)
    return tuple(np.moveaxis(idx, -1, 0))


class GatherND(Op):
    op = type = "GatherND"
    version = "opset8"
    in_ports_count = 2
    attr_types = {"batch_dims": "int"}
    defaults = {"batch_dims": 0}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        data, idx, b = shapes[0], shapes[1], attrs["batch_dims"]
        if data is None or idx is None or idx[-1] < 0:
            return [None]
        return [idx[:-1] + data[b + idx[-1]:]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, idx, b = inputs[0], np.asarray(inputs[1]), attrs["batch_dims"]
        n = math.prod(data.shape[:b])
        flat_data = data.reshape((n,) + data.shape[b:])
        flat_idx = idx.reshape((n, -1, idx.shape[-1]))
        picked = flat_data[(np.arange(n)[:, None], *nd_index(flat_data.shape[1:], flat_idx))]
        return [picked.reshape(idx.shape[:-1] + data.shape[b + idx.shape[-1]:])]
