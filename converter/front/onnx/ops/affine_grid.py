"""ONNX AffineGrid (opset 20) in opset ops: the normalised [-1, 1] coordinates of every output
position (x fastest), made homogeneous and multiplied by theta."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.int64


def _coords(n: OnnxNode, size: Port, axis: int, theta: Port) -> Port:
    """The normalised coordinates along one spatial axis of the output size."""
    dim = n.op("Gather", [size, np.array(axis, I64), np.array(0, I64)])
    steps = n.op("ConvertLike", [n.op("Range", [np.array(0, I64), dim, np.array(1, I64)],
                                      output_type=np.dtype(I64)), theta])
    length = n.op("ConvertLike", [dim, theta])
    two, one = (n.op("ConvertLike", [n.const(v, np.float32), theta]) for v in (2.0, 1.0))
    if n.attr("align_corners", 0):  # -1 + 2 i / (d - 1)
        scaled = n.op("Divide", [n.op("Multiply", [steps, two]),
                                 n.op("Subtract", [length, one])])
    else:  # (2 i + 1) / d - 1
        scaled = n.op("Divide", [n.op("Add", [n.op("Multiply", [steps, two]), one]), length])
    return n.op("Subtract", [scaled, one])


@onnx_op("AffineGrid", since=20)
def affine_grid(n: OnnxNode):
    theta = n.input(0)
    size = n.op("Convert", [n.input(1)], destination_type=np.dtype(I64))
    spatial = n.static_rank(0)
    size_len = n.const_value(1)
    count = None if size_len is None else len(size_len) - 2
    if count is None:
        shape = n.input(1).node.soft_get("shape", None)
        count = None if shape is None else int(shape[0]) - 2
    if count not in (2, 3) or spatial != 3:
        n.reject("cannot tell whether the grid is 2-D or 3-D", "give the size input a shape")
    # axis k of the output grid (D, H, W) gets coordinate c_k on its own axis, 1 elsewhere
    dims = n.op("Gather", [size, np.arange(2, 2 + count, dtype=I64), np.array(0, I64)])
    ones = n.op("Broadcast", [n.op("ConvertLike", [n.const(1.0, np.float32), theta]), dims])
    columns = []
    for k in reversed(range(count)):  # x (the last axis) first
        layout = [1] * count
        layout[k] = -1
        c = n.op("Reshape", [_coords(n, size, 2 + k, theta), np.array(layout, I64)],
                 special_zero=False)
        columns.append(n.op("Multiply", [c, ones]))
    columns.append(ones)
    homogeneous = n.op("Concat", [n.op("Unsqueeze", [c, np.array(-1, I64)]) for c in columns],
                       axis=-1)
    flat = n.op("Reshape", [homogeneous, np.array([-1, count + 1], I64)], special_zero=False)
    grid = n.op("MatMul", [flat, theta], transpose_b=True)
    batch = n.op("Gather", [size, np.array([0], I64), np.array(0, I64)])
    shape = n.op("Concat", [batch, dims, np.array([count], I64)], axis=0)
    return [n.op("Reshape", [grid, shape], special_zero=False)]
