"""Constant, Identity, Cast and friends."""

from __future__ import annotations

import numpy as np
import onnx

from converter.front.onnx.translator import OnnxNode, onnx_op


@onnx_op("Constant")
def constant(n: OnnxNode):
    for key in ("value", "value_float", "value_floats", "value_int", "value_ints"):
        if n.has_attr(key):
            value = n.attr(key)
            dtype = np.float32 if "float" in key else np.int64 if "int" in key else None
            return [n.const(value, dtype=dtype, name=n.name)]
    n.reject("no supported value attribute")


@onnx_op("Identity")
def identity(n: OnnxNode):
    return [n.input(0)]


@onnx_op("Cast")
def cast(n: OnnxNode):
    to = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(n.attr("to")))
    return [n.op("Convert", [n.input(0)], destination_type=to)]
