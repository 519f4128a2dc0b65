"""ReorgYolo-2: YOLOv2's reorganisation of [N, C, H, W] into [N, C * s * s, H / s, W / s].
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/reorg-yolo-1.html

Not space-to-depth: as darknet's reorg (and OpenVINO's reference), output element k (in the
input's [N, C, H, W] order) reads the input, seen as [N, C / s^2, H * s, W * s], at channel
c % (C / s^2), row h * s + (c / (C / s^2)) / s, column w * s + (c / (C / s^2)) % s.
"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["ReorgYolo"]


class ReorgYolo(Op):
    op = type = "ReorgYolo"
    version = "opset2"
    attr_types = {"stride": "ints"}

    @staticmethod
    def _stride(attrs: dict) -> int:
        return int(np.ravel(attrs["stride"])[0])

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        x, s = shapes[0], cls._stride(attrs)
        if x is None:
            return [None]
        spatial = [DYN if d == DYN else d // s for d in x[2:]]
        return [(x[0], DYN if x[1] == DYN else x[1] * s * s, *spatial)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, s = np.asarray(inputs[0]), cls._stride(attrs)
        _, c, h, w = x.shape
        n, ch, row, col = np.indices(x.shape)
        groups = c // (s * s)
        offset = ch // groups
        index = ((n * groups + ch % groups) * (h * s) + row * s + offset // s) * (w * s) + (
            col * s + offset % s)
        (shape,) = cls.infer_shapes(attrs, [x.shape], [None])
        return [x.ravel()[index].reshape(shape)]
