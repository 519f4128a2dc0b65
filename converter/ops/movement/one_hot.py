"""OneHot-1 and OneHot-16: one-hot encoding along a new axis; out-of-range indices give all
off_value; OneHot-16's negative_indices_mode "normalize" first counts negative indices from
depth (written as OneHot-1 otherwise). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/sequence/one-hot-1.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import normalize_axis
from converter.ops.op import Op

__all__ = ["OneHot"]


class OneHot(Op):
    op = type = "OneHot"
    version = "opset16"
    older_versions = ("opset1",)
    in_ports_count = 4
    attr_types = {"axis": "int", "negative_indices_mode": "str"}
    defaults = {"axis": -1, "negative_indices_mode": "ignore_negative"}

    @classmethod
    def version_for(cls, attrs):
        return cls.version if attrs.get("negative_indices_mode") == "normalize" else "opset1"

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        if shapes[0] is None:
            return [None]
        depth = int(values[1]) if values[1] is not None else -1
        out = list(shapes[0])
        out.insert(normalize_axis(attrs["axis"], len(out) + 1), depth)
        return [tuple(out)]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[2]]

    @classmethod
    def evaluate(cls, attrs, inputs):
        idx, depth, on, off = inputs
        if attrs.get("negative_indices_mode") == "normalize":
            idx = np.where(idx < 0, idx + int(depth), idx)
        axis = normalize_axis(attrs["axis"], idx.ndim + 1)
        hot = np.expand_dims(idx, -1) == np.arange(int(depth))
        return [np.moveaxis(np.where(hot, on, off).astype(on.dtype), -1, axis)]
