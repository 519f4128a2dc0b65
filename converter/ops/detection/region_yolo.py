"""RegionYolo-1: the activations of a YOLO detection head.
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/detection/region-yolo-1.html

Input [N, C, H, W] holds regions of (coords + 1 + classes) maps each. With do_softmax (YOLOv2)
there are `num` regions, the classes get a softmax and the output is the input flattened from
`axis` to `end_axis`; without it (YOLOv3) there are len(mask) regions, the classes get a
sigmoid and the output is [N, regions * (coords + 1 + classes), H, W]. In both the first two
coords and the objectness get a sigmoid. As OpenVINO's reference, the output is the start of
the input with these applied.
"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["RegionYolo"]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


class RegionYolo(Op):
    op = type = "RegionYolo"
    version = "opset1"
    attr_types = {"coords": "int", "classes": "int", "num": "int", "do_softmax": "bool",
                  "mask": "ints", "axis": "int", "end_axis": "int", "anchors": "floats"}
    defaults = {"do_softmax": True, "mask": [], "axis": 1, "end_axis": -1, "anchors": []}

    @classmethod
    def _regions(cls, attrs: dict) -> int:
        return attrs["num"] if attrs["do_softmax"] else len(attrs["mask"])

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        x = shapes[0]
        if x is None:
            return [None]
        if not attrs["do_softmax"]:
            size = attrs["coords"] + 1 + attrs["classes"]
            return [(x[0], cls._regions(attrs) * size, *x[2:])]
        start, end = attrs["axis"] % len(x), attrs["end_axis"] % len(x)
        middle = x[start:end + 1]
        flat = DYN if DYN in middle else int(np.prod(middle))
        return [(*x[:start], flat, *x[end + 1:])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = np.asarray(inputs[0])
        (shape,) = cls.infer_shapes(attrs, [x.shape], [None])
        n, area, coords = x.shape[0], int(np.prod(x.shape[2:])), attrs["coords"]
        out = x.ravel()[: int(np.prod(shape))].reshape(n, cls._regions(attrs), -1, area).copy()
        out[:, :, :2] = _sigmoid(out[:, :, :2])
        out[:, :, coords] = _sigmoid(out[:, :, coords])
        scores = out[:, :, coords + 1:]
        if attrs["do_softmax"]:
            e = np.exp(scores - scores.max(axis=2, keepdims=True))
            out[:, :, coords + 1:] = e / e.sum(axis=2, keepdims=True)
        else:
            out[:, :, coords + 1:] = _sigmoid(scores)
        return [out.reshape(shape)]
