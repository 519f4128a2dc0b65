"""ONNX CenterCropPad (opset 18) in opset ops: each named axis cropped or zero-padded to the
wanted size about its centre (the odd element goes to the end)."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.int64


def _full(n: OnnxNode, axes: np.ndarray, values: Port, rank: int) -> Port:
    """values at axes of a rank-long vector of zeros."""
    return n.op("ScatterUpdate", [np.zeros(rank, I64), axes, values, np.array(0, I64)])


@onnx_op("CenterCropPad", since=18)
def center_crop_pad(n: OnnxNode):
    x, rank = n.input(0), n.static_rank(0)
    if rank is None:
        n.reject("cannot tell the input's rank", "give the model's inputs a shape")
    axes = np.array([a % rank for a in n.attr("axes", range(rank))], I64)
    zero, two = np.array(0, I64), np.array(2, I64)
    dims = n.op("Gather", [n.op("ShapeOf", [x], output_type=np.dtype(I64)), axes, zero])
    wanted = n.op("Convert", [n.input(1)], destination_type=np.dtype(I64))
    grow = n.op("Subtract", [wanted, dims])
    cut = n.op("Maximum", [n.op("Negative", [grow]), zero])
    start = n.op("Divide", [cut, two])
    kept = n.op("Minimum", [wanted, dims])
    cropped = n.op("Slice", [x, start, n.op("Add", [start, kept]), np.ones(len(axes), I64),
                             axes])
    pad = n.op("Maximum", [grow, zero])
    begin = n.op("Divide", [pad, two])
    return [n.op("Pad", [cropped, _full(n, axes, begin, rank),
                         _full(n, axes, n.op("Subtract", [pad, begin]), rank),
                         n.op("ConvertLike", [n.const(0), x])])]
