"""ONNX's experimental ops (opsets 1-9, since dropped from the spec) that older exporters wrote
and ovc still reads: Affine, Crop and ImageScaler (Caffe2 and WinMLTools exports, tiny-YOLOv2
starts with an ImageScaler). Each is written as ovc writes it."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.int64


def _scalar(n: OnnxNode, value: float, rank: int | None) -> Port:
    """value as a constant of x's rank (ones everywhere), as ovc shapes it."""
    return n.const(np.full([1] * (rank or 0), value, np.float32))


@onnx_op("Affine")
def affine(n: OnnxNode):
    """alpha * x + beta."""
    rank = n.static_rank(0)
    scaled = n.op("Multiply", [n.input(0), _scalar(n, float(n.attr("alpha", 1.0)), rank)])
    return [n.op("Add", [scaled, _scalar(n, float(n.attr("beta", 0.0)), rank)])]


@onnx_op("ImageScaler")
def image_scaler(n: OnnxNode):
    """scale * x + bias[channel], on an NCHW image."""
    if n.static_rank(0) not in (None, 4):
        n.reject("needs a 4-D (NCHW) input", "give the model's input an NCHW shape")
    bias = np.asarray(n.attr("bias", []), np.float32).reshape(1, -1, 1, 1)
    scaled = n.op("Multiply", [n.input(0), _scalar(n, float(n.attr("scale", 1.0)), 4)])
    return [n.op("Add", [scaled, n.const(bias)])] if bias.size else [scaled]


@onnx_op("Crop")
def crop(n: OnnxNode):
    """The NCHW image with `border` (left, top, right, bottom) cut off, or, with `scale`
    (height, width), that many rows and columns from the top-left corner of the border."""
    if n.static_rank(0) not in (None, 4):
        n.reject("needs a 4-D (NCHW) input", "give the model's input an NCHW shape")
    border = [int(b) for b in n.attr("border", [])]
    if len(border) != 4:
        n.reject("needs `border` of 4 values (left, top, right, bottom)",
                 "set the node's border attribute")
    left, top, right, bottom = border
    begin = np.array([0, 0, top, left], I64)
    if n.has_attr("scale"):
        height, width = (int(s) for s in n.attr("scale"))
        end: Port | np.ndarray = np.array([0, 0, top + height, left + width], I64)
    else:  # (ovc keeps the shape path unfolded)
        shape = n.op("ShapeOf", [n.input(0)], output_type=np.dtype(I64), keep_unfolded=True)
        end = n.op("Add", [shape, n.const(np.array([0, 0, -bottom, -right], I64))],
                   keep_unfolded=True)
    return [n.op("StridedSlice", [n.input(0), begin, end, np.ones(4, I64)],
                 begin_mask=[1, 1, 0, 0], end_mask=[1, 1, 0, 0])]
