"""ScatterNDUpdate-15: writes updates at index tuples, with an optional reduction. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/scatter-nd-update-15.html"""

from __future__ import annotations

from converter.ops.movement._private import scatter_reduce
from converter.ops.movement.gather_nd import nd_index
from converter.ops.op import Op

__all__ = ["ScatterNDUpdate"]


class ScatterNDUpdate(Op):
    op = type = "ScatterNDUpdate"
    version = "opset15"
    in_ports_count = 3
    attr_types = {"reduction": "str"}
    defaults = {"reduction": "none"}

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, idx, updates = inputs
        return [scatter_reduce(data, nd_index(data.shape, idx), updates, attrs["reduction"])]
