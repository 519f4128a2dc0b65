"""GatherElements-6: picks elements along an axis by same-rank indices. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/gather-elements-6.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import normalize_axis
from converter.ops.op import Op

__all__ = ["GatherElements"]


class GatherElements(Op):
    op = type = "GatherElements"
    version = "opset6"
    in_ports_count = 2
    attr_types = {"axis": "int"}
    defaults = {"axis": 0}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        return [shapes[1]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, idx = inputs[0], np.asarray(inputs[1], dtype=np.int64)
        axis = normalize_axis(attrs["axis"], data.ndim)
        idx = np.where(idx < 0, idx + data.shape[axis], idx)
        return [np.take_along_axis(data, idx, axis=axis)]
