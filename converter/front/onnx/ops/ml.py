"""ONNX-ML (ai.onnx.ml) ops that are tensor arithmetic: Binarizer, ArrayFeatureExtractor."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port


@onnx_op("ai.onnx.ml::Binarizer")
def binarizer(n: OnnxNode) -> list[Port]:
    """1 where x exceeds the threshold, else 0, in x's type."""
    x = n.input(0)
    threshold = n.op("ConvertLike", [np.float32(n.attr("threshold", 0.0)), x])
    one, zero = (n.op("ConvertLike", [np.float32(v), x]) for v in (1, 0))
    return [n.op("Select", [n.op("Greater", [x, threshold]), one, zero])]


@onnx_op("ai.onnx.ml::ArrayFeatureExtractor")
def array_feature_extractor(n: OnnxNode) -> list[Port]:
    """x's last axis at the indices; a 1-D x gives one row [1, len(indices)]."""
    x = n.input(0)
    y = n.op("Gather", [x, n.input(1), np.int64(-1)])
    return [n.op("Unsqueeze", [y, np.int64(0)]) if n.static_rank(0) == 1 else y]
