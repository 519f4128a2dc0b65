"""Binary arithmetic ops (opset1): Add, Subtract, Multiply, ... https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/arithmetic/add-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.elementwise._base import BinaryOp


class Add(BinaryOp):
    op = type = "Add"
    version = "opset1"
    fn = staticmethod(np.add)


class Subtract(BinaryOp):
    op = type = "Subtract"
    version = "opset1"
    fn = staticmethod(np.subtract)


class Multiply(BinaryOp):
    op = type = "Multiply"
    version = "opset1"
    fn = staticmethod(np.multiply)
