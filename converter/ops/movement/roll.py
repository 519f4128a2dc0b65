"""Roll-7: shifts elements along axes, wrapping around. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/roll-7.html"""

from __future__ import annotations

import numpy as np

from converter.ops.movement._private import as_ints, axes_of
from converter.ops.op import Op

__all__ = ["Roll"]


class Roll(Op):
    op = type = "Roll"
    version = "opset7"
    in_ports_count = 3

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, shift = inputs[0], as_ints(inputs[1])
        axes = axes_of(inputs[2], x.ndim)
        if len(shift) == 1:
            shift = shift * len(axes)
        return [np.roll(x, shift, axes)]
