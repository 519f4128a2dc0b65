"""TensorFlow translators that index, scatter or count: Where (the indices of true), Select,
GatherNd, ScatterNd, TensorScatterUpdate/Add/Max/Min, ArgMax/ArgMin, OneHot, Cumsum and
Bucketize."""

from __future__ import annotations

import numpy as np

from converter.front.tf.translator import TfNode, tf_op


@tf_op("Where")
def where(n: TfNode):
    # NonZero gives [rank, count]; TF gives [count, rank] int64
    found = n.op("NonZero", [n.input(0)], output_type=np.dtype(np.int64))
    return [n.op("Transpose", [found, n.const([1, 0], np.int64)])]


@tf_op("Select")
def select(n: TfNode):
    """TF1 Select: a vector condition picks whole rows of higher-rank branches, so the
    condition's shape gets trailing ones up to the branches' rank."""
    cond, x = n.input(0), n.input(1)
    i64 = np.dtype(np.int64)
    cond_shape = n.op("ShapeOf", [cond], output_type=i64)
    missing = n.op("Subtract", [n.op("ShapeOf", [n.op("ShapeOf", [x], output_type=i64)],
                                     output_type=i64),
                                n.op("ShapeOf", [cond_shape], output_type=i64)])
    ones = n.op("Broadcast", [n.const([1], np.int64), missing], mode="numpy")
    shape = n.op("Concat", [cond_shape, ones], axis=0)
    cond = n.op("Reshape", [cond, shape], special_zero=False)
    return [n.op("Select", [cond, x, n.input(2)], auto_broadcast="numpy")]


@tf_op("GatherNd")
def gather_nd(n: TfNode):
    return [n.op("GatherND", [n.input(0), n.input(1)], batch_dims=0)]


@tf_op("ScatterNd")
def scatter_nd(n: TfNode):
    # updates at repeated indices add up, into zeros of the given shape
    zero = n.const(0, n.attr("T", np.dtype(np.float32)))
    zeros = n.op("Broadcast", [zero, n.input(2)], mode="numpy")
    return [n.op("ScatterNDUpdate", [zeros, n.input(0), n.input(1)], reduction="sum")]


@tf_op("OneHot")
def one_hot(n: TfNode):
    inputs = [n.input(i) for i in range(4)]
    return [n.op("OneHot", inputs, axis=int(n.attr("axis", -1)))]


@tf_op("Cumsum")
def cumsum(n: TfNode):
    return [n.op("CumSum", [n.input(0), n.input(1)], exclusive=bool(n.attr("exclusive", False)),
                 reverse=bool(n.attr("reverse", False)))]


@tf_op("Bucketize")
def bucketize(n: TfNode):
    # TF's buckets hold their left bound: [b[i-1], b[i])
    dtype = n.attr("T", np.dtype(np.float32))
    bounds = n.const(np.asarray(n.attr("boundaries", []), dtype=dtype).reshape(-1))
    return [n.op("Bucketize", [n.input(0), bounds], output_type=np.dtype(np.int32),
                 with_right_bound=False)]


@tf_op("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterMax", "TensorScatterMin")
def tensor_scatter(n: TfNode):
    reduction = {"Update": "none", "Add": "sum", "Max": "max", "Min": "min"}[n.op_type[13:]]
    return [n.op("ScatterNDUpdate", [n.input(0), n.input(1), n.input(2)], reduction=reduction)]


@tf_op("ArgMax", "ArgMin")
def arg_max(n: TfNode):
    # the first index among equal values, as TF: a stable TopK of one
    axis = n.const_value(1)
    if axis is None:
        n.reject("the axis (input 1) must be a constant", "make it a constant in the graph")
    axis = int(np.asarray(axis).reshape(-1)[0])
    mode = "max" if n.op_type == "ArgMax" else "min"
    top = n.op_node("TopK", [n.input(0), n.const(1, np.int64)], axis=axis, mode=mode,
                    sort="value", index_element_type=n.attr("output_type", np.dtype(np.int64)),
                    stable=True)
    return [n.op("Squeeze", [top.out_port(1), n.const([axis], np.int64)])]
