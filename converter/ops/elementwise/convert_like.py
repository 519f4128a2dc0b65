"""ConvertLike-1: convert a tensor to the element type of another. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/type/convert-like-1.html"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from converter.ops.op import Op

if TYPE_CHECKING:
    from converter.graph.graph import Node

__all__ = ["ConvertLike"]


class ConvertLike(Op):
    """Folds as soon as the data is constant and the like-type is known (typed constants)."""

    op = type = "ConvertLike"
    version = "opset1"
    in_ports_count = 2

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[1]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        convert = Op.registered_ops["Convert"]
        return convert.evaluate({"destination_type": np.asarray(inputs[1]).dtype}, inputs[:1])

    @classmethod
    def infer(cls, node: Node) -> None:
        value = node.in_port(0).data.get_value()
        like = node.in_port(1).data.get_data_type()
        if value is None or like is None:
            super().infer(node)
            return
        out = cls.evaluate({}, [np.asarray(value), np.empty(0, like)])[0]
        node.out_port(0).data.set_value(out)
        node.out_port(0).data.set_data_type(out.dtype)
