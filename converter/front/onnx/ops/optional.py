"""ONNX OptionalHasElement and OptionalGetElement on tensors: a tensor is always present, an
omitted input never (sequence- and optional-typed values stay unsupported)."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port


@onnx_op("OptionalHasElement")
def optional_has_element(n: OnnxNode) -> list[Port]:
    return [n.const(np.array(n.input(0) is not None))]


@onnx_op("OptionalGetElement")
def optional_get_element(n: OnnxNode) -> list[Port]:
    if n.input(0) is None:
        n.reject("reads an omitted input", "connect a tensor")
    return [n.input(0)]
