"""Activations: ReLU, Sigmoid, ... https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/activation/relu-1.html"""

from __future__ import annotations

import numpy as np

from converter.ops.elementwise._base import UnaryOp


class Relu(UnaryOp):
    op = type = "ReLU"
    version = "opset1"
    fn = staticmethod(lambda x: np.maximum(x, np.zeros((), x.dtype)))
