"""ONNX ops that scatter into a tensor, as ScatterElementsUpdate: TensorScatter (a KV cache
written at per-batch positions, linear or circular) and MaxUnpool (values put back at their
MaxPool indices in zeros)."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.dtype(np.int64)


def _along(rank: int, axis: int) -> np.ndarray:
    """A shape of rank ones with -1 at axis, to lay a 1-D tensor along that axis."""
    shape = np.ones(rank, I64)
    shape[axis] = -1
    return shape


def _dim(n: OnnxNode, x: Port, axis: int) -> Port:
    return n.op("Gather", [n.op("ShapeOf", [x], output_type=I64), np.array([axis], I64),
                           np.int64(0)])


@onnx_op("TensorScatter")
def tensor_scatter(n: OnnxNode) -> list[Port]:
    cache, update, write = n.input(0), n.input(1), n.input(2)
    rank = n.static_rank(0) or n.static_rank(1)
    if rank is None:
        n.reject("needs the cache's rank at conversion", "give the inputs static ranks")
    axis = int(n.attr("axis", -2)) % rank
    steps = n.op("Range", [np.int64(0), n.op("Squeeze", [_dim(n, update, axis)]),
                           np.int64(1)], output_type=I64)
    where = n.op("Reshape", [steps, _along(rank, axis)], special_zero=False)
    if write is not None:
        start = n.op("Reshape", [n.op("Convert", [write], destination_type=I64),
                                 _along(rank, 0)], special_zero=False)
        where = n.op("Add", [where, start])
    if n.attr("mode", "linear") == "circular":
        where = n.op("FloorMod", [where, _dim(n, cache, axis)])
    where = n.op("Broadcast", [where, n.op("ShapeOf", [update], output_type=I64)])
    return [n.op("ScatterElementsUpdate", [cache, where, update, np.int64(axis)])]


def _unpooled_shape(n: OnnxNode, x: Port) -> Port:
    """[N, C, (in - 1) * stride - pads + kernel per spatial axis], as the pooling implies."""
    kernel = np.array(n.attr("kernel_shape"), I64)
    spatial = len(kernel)
    strides = np.array(n.attr("strides", [1] * spatial), I64)
    pads = np.array(n.attr("pads", [0] * 2 * spatial), I64)
    shape = n.op("ShapeOf", [x], output_type=I64)
    inner = n.op("Slice", [shape, np.array([2], I64), np.array([2 + spatial], I64),
                           np.array([1], I64)])
    grown = n.op("Multiply", [n.op("Subtract", [inner, np.int64(1)]), strides])
    outer = n.op("Add", [grown, kernel - pads[:spatial] - pads[spatial:]])
    leading = n.op("Slice", [shape, np.array([0], I64), np.array([2], I64), np.array([1], I64)])
    return n.op("Concat", [leading, outer], axis=0)


@onnx_op("MaxUnpool")
def max_unpool(n: OnnxNode) -> list[Port]:
    """The values at their indices (flat, into the shape the pooling implies) in zeros; an
    output_shape input pads that at the end of each axis."""
    x, indices, size = n.input(0), n.input(1), n.input(2)
    shape = _unpooled_shape(n, x)
    count = n.op("ReduceProd", [shape, np.array([0], I64)], keep_dims=True)
    zeros = n.op("Broadcast", [n.op("ConvertLike", [np.float32(0), x]), count])
    flat = [n.op("Reshape", [v, np.array([-1], I64)], special_zero=False) for v in (indices, x)]
    scattered = n.op("ScatterElementsUpdate", [zeros, *flat, np.int64(0)])
    y = n.op("Reshape", [scattered, shape], special_zero=False)
    if size is None:
        return [y]
    grow = n.op("Subtract", [n.op("Convert", [size], destination_type=I64), shape])
    zero = n.op("ConvertLike", [np.float32(0), x])
    return [n.op("Pad", [y, n.op("Multiply", [grow, np.int64(0)]), grow, zero],
                 pad_mode="constant")]
