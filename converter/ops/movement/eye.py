"""Eye-9: (batches of) matrices with ones on a chosen diagonal. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/generation/eye-9.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.movement._private import as_ints, unknown_of_length
from converter.ops.op import Op

__all__ = ["Eye"]


class Eye(Op):
    op = type = "Eye"
    version = "opset9"
    in_ports_count = 4
    attr_types = {"output_type": "type"}
    defaults = {"output_type": np.dtype(np.float32)}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        rows, cols = (int(np.ravel(v)[0]) if v is not None else DYN for v in values[:2])
        if len(values) < 4:
            return [(rows, cols)]
        batch = tuple(as_ints(values[3])) if values[3] is not None else unknown_of_length(shapes[3])
        return [None if batch is None else batch + (rows, cols)]

    @classmethod
    def infer_types(cls, attrs, types):
        return [np.dtype(attrs["output_type"])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        rows, cols, k = (int(np.ravel(v)[0]) for v in inputs[:3])
        eye = np.eye(rows, cols, k, dtype=attrs["output_type"])
        batch = tuple(as_ints(inputs[3])) if len(inputs) > 3 else ()
        return [np.ascontiguousarray(np.broadcast_to(eye, batch + eye.shape))]
