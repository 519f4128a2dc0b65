"""RandomUniform-8: a tensor of the shape input 0 holds, of uniform random values in
[min, max) (inputs 1 and 2, of output_type). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/generation/random-uniform-8.html

Shapes and types only: its values come from OpenVINO's Philox generator at run time, so it is
never folded into a constant and the shim runs no model holding it.
"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["RandomUniform"]


class RandomUniform(Op):
    op = type = "RandomUniform"
    version = "opset8"
    in_ports_count = 3
    attr_types = {"output_type": "type", "global_seed": "int", "op_seed": "int"}
    defaults = {"output_type": np.dtype(np.float32), "global_seed": 0, "op_seed": 0}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        if values[0] is not None:
            return [tuple(int(d) for d in np.ravel(values[0]))]
        if shapes[0] is None or shapes[0][0] == DYN:
            return [None]
        return [(DYN,) * shapes[0][0]]

    @classmethod
    def infer_types(cls, attrs, types):
        return [np.dtype(attrs["output_type"])]
