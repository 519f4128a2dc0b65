"""TensorFlow translators that index, scatter or count: Where (the indices of true), Select,
GatherNd, ScatterNd, TensorScatterUpdate/Add/Max/Min, ArgMax/ArgMin, OneHot, Cumsum, Bucketize,
Unique and the segment reductions."""

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
                    stable=True, remove_values_output=True)  # MO's mark (TopKNormalizer)
    return [n.op("Squeeze", [top.out_port(1), n.const([axis], np.int64)])]


@tf_op("Unique")
def unique(n: TfNode):
    # TF keeps the order of first occurrence, and idx maps each input to its unique value
    node = n.op_node("Unique", [n.input(0)], sorted=False,
                     index_element_type=n.attr("out_idx", np.dtype(np.int32)),
                     count_element_type=np.dtype(np.int64))
    return [node.out_port(0), node.out_port(2)]


# segment reduction -> (ScatterNDUpdate reduction, the value of an empty segment)
_SEGMENT = {"Sum": ("sum", 0), "Prod": ("prod", 1), "Max": ("max", "lowest"),
            "Min": ("min", "highest")}


@tf_op("UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax",
       "UnsortedSegmentMin", "SegmentSum", "SegmentProd")
def segment_reduce(n: TfNode):
    """data rows reduced into the segment each id names: a reducing ScatterNDUpdate into a
    tensor of the empty-segment value; SegmentSum/Prod take max(id) + 1 segments (SegmentMax/Min
    give 0 for an empty segment, not translated)."""
    i64 = np.dtype(np.int64)
    reduction, empty = _SEGMENT[n.op_type.rsplit("Segment", 1)[1]]
    dtype = n.attr("T", np.dtype(np.float32))
    if isinstance(empty, str):
        info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
        empty = info.min if empty == "lowest" else info.max
    data, ids = n.input(0), n.op("Convert", [n.input(1)], destination_type=i64)
    if n.op_type.startswith("Unsorted"):
        count = n.op("Reshape", [n.op("Convert", [n.input(2)], destination_type=i64),
                                 n.const([1], np.int64)], special_zero=False)
    else:
        count = n.op("Add", [n.op("ReduceMax", [ids, n.const([0], np.int64)], keep_dims=True),
                             n.const([1], np.int64)])
    ids_rank = n.op("ShapeOf", [n.op("ShapeOf", [ids], output_type=i64)], output_type=i64)
    row = n.op("Slice", [n.op("ShapeOf", [data], output_type=i64), ids_rank,
                         n.const([np.iinfo(np.int64).max], np.int64), n.const([1], np.int64)])
    shape = n.op("Concat", [count, row], axis=0)
    init = n.op("Broadcast", [n.const(empty, dtype), shape], mode="numpy")
    index = n.op("Unsqueeze", [ids, n.const([-1], np.int64)])
    return [n.op("ScatterNDUpdate", [init, index, data], reduction=reduction)]


@tf_op("SparseToDense")
def sparse_to_dense(n: TfNode):
    """default_value everywhere but at sparse_indices ([N, rank], [N] or a scalar)."""
    i64 = np.dtype(np.int64)
    shape = n.op("Reshape", [n.op("Convert", [n.input(1)], destination_type=i64),
                             n.const([-1], np.int64)], special_zero=False)
    rank = n.op("ShapeOf", [shape], output_type=i64)
    index = n.op("Reshape", [n.op("Convert", [n.input(0)], destination_type=i64),
                             n.op("Concat", [n.const([-1], np.int64), rank], axis=0)],
                 special_zero=False)
    count = n.op("Gather", [n.op("ShapeOf", [index], output_type=i64), n.const([0], np.int64),
                            n.const(0, np.int64)], batch_dims=0)
    values = n.op("Broadcast", [n.input(2), count], mode="numpy")
    dense = n.op("Broadcast", [n.input(3), shape], mode="numpy")
    return [n.op("ScatterNDUpdate", [dense, index, values])]


@tf_op("InvertPermutation")
def invert_permutation(n: TfNode):
    """y[x[i]] = i: every position of y is written once, so any start value serves."""
    dtype = n.attr("T", np.dtype(np.int32))
    x = n.input(0)
    count = n.op("Squeeze", [n.op("ShapeOf", [x], output_type=dtype), n.const([0], np.int64)])
    order = n.op("Range", [n.const(0, dtype), count, n.const(1, dtype)], output_type=dtype)
    return [n.op("ScatterElementsUpdate", [order, x, order, n.const(0, np.int64)])]
