"""ScatterUpdate-3: overwrites slices along an axis at the given indices. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/scatter-update-3.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import normalize_axis
from converter.ops.op import Op

__all__ = ["ScatterUpdate"]


class ScatterUpdate(Op):
    op = type = "ScatterUpdate"
    version = "opset3"
    in_ports_count = 4

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, idx, updates = inputs[0], np.asarray(inputs[1], dtype=np.int64), inputs[2]
        axis = normalize_axis(int(inputs[3]), data.ndim)
        out = data.copy()
        idx = np.where(idx < 0, idx + data.shape[axis], idx).ravel()
        # updates: data.shape[:axis] + indices.shape + data.shape[axis+1:]
        lead = list(range(axis, axis + np.ndim(inputs[1])))
        rest = [d for d in range(updates.ndim) if d not in lead]
        rest_shape = tuple(updates.shape[d] for d in rest)
        moved = updates.transpose(lead + rest).reshape((idx.size, *rest_shape))
        np.moveaxis(out, axis, 0)[idx] = moved
        return [out]
