"""Convert-1: element type conversion. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/type/convert-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op


class Convert(Op):
    op = type = "Convert"
    version = "opset1"
    in_ports_count = 1
    attr_types = {"destination_type": "type"}

    @classmethod
    def infer_types(cls, attrs, types):
        return [np.dtype(attrs["destination_type"])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, to = inputs[0], np.dtype(attrs["destination_type"])
        if to.kind in "iu" and x.dtype.kind == "f":
            x = np.trunc(np.nan_to_num(x))
        return [x.astype(to)]
