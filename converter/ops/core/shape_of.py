"""ShapeOf-3: the shape of a tensor as a 1D tensor. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/shape/shape-of-3.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import is_static
from converter.ops.op import Op


class ShapeOf(Op):
    op = type = "ShapeOf"
    version = "opset3"
    in_ports_count = 1
    attr_types = {"output_type": "type"}
    defaults = {"output_type": np.dtype(np.int64)}

    @classmethod
    def infer(cls, node) -> None:
        shape = node.in_port(0).data.get_shape()
        out = node.out_port(0).data
        dtype = np.dtype(cls.ir_attrs(node)["output_type"])
        if is_static(shape):
            out.set_value(np.array(shape, dtype=dtype))
        else:
            out.set_shape(None if shape is None else (len(shape),))
        out.set_data_type(dtype)

    @classmethod
    def infer_types(cls, attrs, types):
        return [np.dtype(attrs["output_type"])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        return [np.array(inputs[0].shape, dtype=attrs["output_type"])]
