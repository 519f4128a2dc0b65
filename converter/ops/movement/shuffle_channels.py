"""ShuffleChannels-1: interleaves channel groups along an axis. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/shuffle-channels-1.html"""

from __future__ import annotations

import math

from converter.graph.shape import normalize_axis
from converter.ops.op import Op

__all__ = ["ShuffleChannels"]


class ShuffleChannels(Op):
    op = type = "ShuffleChannels"
    version = "opset1"
    in_ports_count = 1
    attr_types = {"axis": "int", "group": "int"}
    defaults = {"axis": 1, "group": 1}

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        axis, group = normalize_axis(attrs["axis"], x.ndim), attrs["group"]
        pre, post = math.prod(x.shape[:axis]), math.prod(x.shape[axis + 1:])
        grouped = x.reshape(pre, group, x.shape[axis] // group, post)
        return [grouped.transpose(0, 2, 1, 3).reshape(x.shape)]
