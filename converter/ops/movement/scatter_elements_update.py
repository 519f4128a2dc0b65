"""ScatterElementsUpdate-12: element-wise scatter along an axis with an optional reduction. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/scatter-elements-update-12.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import normalize_axis
from converter.ops.movement._private import scatter_reduce
from converter.ops.op import Op

__all__ = ["ScatterElementsUpdate"]


class ScatterElementsUpdate(Op):
    op = type = "ScatterElementsUpdate"
    version = "opset12"
    in_ports_count = 4
    attr_types = {"reduction": "str", "use_init_val": "bool"}
    defaults = {"reduction": "none", "use_init_val": True}

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, idx, updates = inputs[0], np.asarray(inputs[1], dtype=np.int64), inputs[2]
        axis = normalize_axis(int(inputs[3]), data.ndim)
        idx = np.where(idx < 0, idx + data.shape[axis], idx)
        grid = list(np.indices(idx.shape, sparse=True))
        grid[axis] = idx
        where = tuple(np.broadcast_arrays(*grid))
        return [scatter_reduce(data, where, updates, attrs["reduction"], attrs["use_init_val"])]
