"""Bucketize-3: the index of the bucket each element falls into. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/condition/bucketize-3.html"""

from __future__ import annotations

import numpy as np

from converter.ops.op import Op


class Bucketize(Op):
    op = type = "Bucketize"
    version = "opset3"
    in_ports_count = 2
    attr_types = {"output_type": "type", "with_right_bound": "bool"}
    defaults = {"output_type": np.dtype(np.int64), "with_right_bound": True}

    @classmethod
    def infer_types(cls, attrs, types):
        return [np.dtype(attrs["output_type"])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        side = "left" if attrs["with_right_bound"] else "right"
        return [np.searchsorted(np.asarray(inputs[1]), inputs[0], side=side)]
