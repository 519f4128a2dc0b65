"""MXNet translators for indexing, sequence and matrix-product ops: take, Embedding, one_hot,
argmax/argmin, where, tile, stack, _arange, _contrib_arange_like, _eye, cumsum, batch_dot and
_contrib_div_sqrt_dim."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.mxnet.translator import MxnetNode, mxnet_op

_I64 = np.dtype(np.int64)
_F32 = np.dtype(np.float32)


@mxnet_op("take")
def take(n: MxnetNode):
    """Gather along axis; mode 'clip' (MXNet's default) clamps the indices, 'wrap' wraps them."""
    x, axis = n.input(0), n.attrs.int("axis", 0)
    mode = n.attrs.str("mode", "clip")
    if mode not in ("clip", "wrap"):
        n.reject(f"mode '{mode}' is not supported", "use mode 'clip' or 'wrap'")
    idx = n.op("Convert", [n.input(1)], destination_type=_I64)
    size = n.op("Gather", [n.op("ShapeOf", [x], output_type=_I64), n.const([axis], np.int64),
                           n.const(0, np.int64)])
    if mode == "clip":
        last = n.op("Subtract", [size, n.const(1, np.int64)])
        idx = n.op("Minimum", [n.op("Maximum", [idx, n.const(0, np.int64)]), last])
    else:
        idx = n.op("FloorMod", [idx, size])
    y = n.op("Gather", [x, idx, n.const(axis, np.int64)], batch_dims=0)
    y.node[mo_front.MO_FRONT] = mo_front.extracted(  # (MO's form, to legacy passes)
        "AttributedGather", "Gather", 2, axis=np.int64(axis))
    return [y]


@mxnet_op("Embedding")
def embedding(n: MxnetNode):
    """Rows of the weight (input 1) at the data's indices."""
    idx = n.op("Convert", [n.input(0)], destination_type=_I64)
    return [n.op("Gather", [n.input(1), idx, n.const(0, np.int64)], batch_dims=0)]


@mxnet_op("one_hot")
def one_hot(n: MxnetNode):
    dtype = np.dtype(n.attrs.str("dtype", "float32"))
    on, off = (n.const(n.attrs.float(k, v), dtype) for k, v in (("on_value", 1.0),
                                                               ("off_value", 0.0)))
    idx = n.op("Convert", [n.input(0)], destination_type=_I64)
    return [n.op("OneHot", [idx, n.const(n.attrs.int("depth"), np.int64), on, off], axis=-1)]


@mxnet_op("argmax", "argmin")
def arg_extreme(n: MxnetNode):
    """The index of the first largest (smallest) value along axis, as float32 (MXNet's
    type); without an axis, of the flattened input."""
    x, axis = n.input(0), n.attrs.int("axis", None)
    if axis is None:
        x, axis = n.op("Reshape", [x, n.const([-1], np.int64)], special_zero=False), 0
    mode = "max" if n.op_type == "argmax" else "min"
    topk = n.op("TopK", [x, n.const(1, np.int64)], axis=axis, mode=mode, sort="none",
                index_element_type=_I64)
    index = topk.node.out_port(1)
    if not n.attrs.bool("keepdims", False):
        index = n.op("Squeeze", [index, n.const([axis], np.int64)])
    return [n.op("Convert", [index], destination_type=_F32)]


@mxnet_op("where")
def where(n: MxnetNode):
    condition = n.op("NotEqual", [n.input(0), n.op("ConvertLike", [n.const(0, np.float32),
                                                                   n.input(0)])])
    return [n.op("Select", [condition, n.input(1), n.input(2)])]


@mxnet_op("tile")
def tile(n: MxnetNode):
    return [n.op("Tile", [n.input(0), n.const(list(n.attrs.tuple("reps", int)), np.int64)])]


@mxnet_op("stack")
def stack(n: MxnetNode):
    axis = n.const([n.attrs.int("axis", 0)], np.int64)
    parts = [n.op("Unsqueeze", [n.input(i), axis]) for i in range(n.num_inputs)]
    return [n.op("Concat", parts, axis=n.attrs.int("axis", 0))]


@mxnet_op("_arange")
def arange(n: MxnetNode):
    """start, start + step, ... below stop (or count from 0 without stop), each `repeat`
    times: a constant."""
    start, stop = n.attrs.float("start", 0.0), n.attrs.float("stop", None)
    if stop is None:
        start, stop = 0.0, start
    values = np.arange(start, stop, n.attrs.float("step", 1.0))
    values = np.repeat(values, n.attrs.int("repeat", 1))
    return [n.const(values.astype(n.attrs.str("dtype", "float32")))]


@mxnet_op("_contrib_arange_like")
def arange_like(n: MxnetNode):
    """start, start + step, ... as many as the input has elements (in its shape), or as its
    `axis` is long (1-D); each value `repeat` times: a Range over the input's shape."""
    x, axis = n.input(0), n.attrs.int("axis", None)
    start, step = n.attrs.float("start", 0.0), n.attrs.float("step", 1.0)
    repeat = n.attrs.int("repeat", 1)
    shape = n.op("ShapeOf", [x], output_type=_I64)
    if axis is None:
        count = n.op("ReduceProd", [shape, n.const(0, np.int64)], keep_dims=False)
    else:
        count = n.op("Gather", [shape, n.const(axis, np.int64), n.const(0, np.int64)],
                     batch_dims=0)
    index = n.op("Range", [n.const(0, np.int64), count, n.const(1, np.int64)],
                 output_type=_I64)
    if repeat != 1:
        index = n.op("Divide", [index, n.const(repeat, np.int64)], m_pythondiv=True)
    values = n.op("Add", [n.op("Multiply", [n.op("Convert", [index], destination_type=_F32),
                                            n.const(step, np.float32)]),
                          n.const(start, np.float32)])
    if axis is None:
        values = n.op("Reshape", [values, shape], special_zero=False)
    return [n.op("ConvertLike", [values, x])]


@mxnet_op("_eye")
def eye(n: MxnetNode):
    """An N x M matrix (M = N when 0) of ones on the k-th diagonal: a constant."""
    rows = n.attrs.int("N", 1)
    cols = n.attrs.int("M", 0) or rows
    return [n.const(np.eye(rows, cols, n.attrs.int("k", 0), dtype=n.attrs.str("dtype",
                                                                               "float32")))]


@mxnet_op("cumsum", "_np_cumsum")
def cumsum(n: MxnetNode):
    x, axis = n.input(0), n.attrs.int("axis", None)
    if axis is None:
        x, axis = n.op("Reshape", [x, n.const([-1], np.int64)], special_zero=False), 0
    return [n.op("CumSum", [x, n.const(axis, np.int64)])]


@mxnet_op("batch_dot")
def batch_dot(n: MxnetNode):
    """Matrix products of [B, M, K] and [B, K, N] batches (either transposed)."""
    return [n.op("MatMul", [n.input(0), n.input(1)],
                 transpose_a=n.attrs.bool("transpose_a", False),
                 transpose_b=n.attrs.bool("transpose_b", False))]


@mxnet_op("_contrib_div_sqrt_dim")
def div_sqrt_dim(n: MxnetNode):
    """x / sqrt(x's last dimension)."""
    x = n.input(0)
    last = n.op("Gather", [n.op("ShapeOf", [x], output_type=_I64), n.const(-1, np.int64),
                           n.const(0, np.int64)])
    root = n.op("Sqrt", [n.op("ConvertLike", [last, x])])
    return [n.op("Divide", [x, root])]
