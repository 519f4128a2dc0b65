"""TensorFlow translators that build or rearrange tensors by shape: BroadcastTo, BroadcastArgs,
Size, Rank, LinSpace, Roll, ReverseSequence, SpaceToBatchND, BatchToSpaceND and
MatrixBandPart."""

from __future__ import annotations

import numpy as np

from converter.front.tf.translator import TfNode, tf_op
from converter.graph.port import Port

_I64 = np.dtype(np.int64)


def _shape(n: TfNode, x: Port) -> Port:
    return n.op("ShapeOf", [x], output_type=_I64)


@tf_op("BroadcastTo")
def broadcast_to(n: TfNode):
    return [n.op("Broadcast", [n.input(0), n.input(1)], mode="numpy")]


@tf_op("Size")
def size(n: TfNode):
    count = n.op("ReduceProd", [_shape(n, n.input(0)), n.const(0, np.int64)], keep_dims=False)
    return [n.op("Convert", [count], destination_type=n.attr("out_type", np.dtype(np.int32)))]


@tf_op("Rank")
def rank(n: TfNode):
    dims = n.op("Squeeze", [_shape(n, _shape(n, n.input(0))), n.const([0], np.int64)])
    return [n.op("Convert", [dims], destination_type=np.dtype(np.int32))]


@tf_op("LinSpace")
def lin_space(n: TfNode):
    """start + i * (stop - start) / (num - 1) for i < num; TF's last value is stop itself."""
    dtype = n.attr("T", np.dtype(np.float32))
    num = n.op("Convert", [n.input(2)], destination_type=dtype)
    steps = n.op("Maximum", [n.op("Subtract", [num, n.const(1, dtype)]), n.const(1, dtype)])
    step = n.op("Divide", [n.op("Subtract", [n.input(1), n.input(0)]), steps])
    index = n.op("Range", [n.const(0, dtype), num, n.const(1, dtype)], output_type=dtype)
    values = n.op("Add", [n.input(0), n.op("Multiply", [index, step])])
    last = n.op("Equal", [index, steps])
    return [n.op("Select", [last, n.input(1), values], auto_broadcast="numpy")]


@tf_op("Roll")
def roll(n: TfNode):
    return [n.op("Roll", [n.input(0), n.input(1), n.input(2)])]


@tf_op("ReverseSequence")
def reverse_sequence(n: TfNode):
    return [n.op("ReverseSequence", [n.input(0), n.input(1)],
                 seq_axis=int(n.attr("seq_dim")), batch_axis=int(n.attr("batch_dim", 0)))]


def _full(n: TfNode, x: Port, middle: Port, fill: int) -> Port:
    """[fill] + middle (the M spatial axes' values) + fill for x's remaining axes."""
    middle = n.op("Convert", [middle], destination_type=_I64)
    rest = n.op("Subtract", [_shape(n, _shape(n, x)),
                             n.op("Add", [_shape(n, middle), n.const([1], np.int64)])])
    tail = n.op("Broadcast", [n.const([fill], np.int64), rest], mode="numpy")
    return n.op("Concat", [n.const([fill], np.int64), middle, tail], axis=0)


def _edges(n: TfNode, x: Port, pairs: Port) -> list[Port]:
    """The [M, 2] paddings or crops as full-rank begin and end vectors."""
    pairs = n.op("Convert", [pairs], destination_type=_I64)
    return [_full(n, x, n.op("Gather", [pairs, n.const(k, np.int64), n.const(1, np.int64)],
                             batch_dims=0), 0) for k in (0, 1)]


@tf_op("SpaceToBatchND", "BatchToSpaceND")
def space_batch_nd(n: TfNode):
    x = n.input(0)
    kind = "SpaceToBatch" if n.op_type == "SpaceToBatchND" else "BatchToSpace"
    # TF's constant inputs, for legacy front passes that expect MO's (TF's) form of the node
    block, pairs = n.const_value(1), n.const_value(2)
    tf_form = {} if block is None or pairs is None else {
        "tf_block": np.asarray(block, np.int64), "tf_pairs": np.asarray(pairs, np.int64)}
    return [n.op(kind, [x, _full(n, x, n.input(1), 1), *_edges(n, x, n.input(2))], **tf_form)]


@tf_op("MatrixBandPart")
def matrix_band_part(n: TfNode):
    """x where the row - column offset lies in [-num_upper, num_lower] (negative: no bound),
    else 0."""
    x = n.input(0)
    shape = _shape(n, x)

    def axis(k: int) -> Port:
        size = n.op("Gather", [shape, n.const(k, np.int64), n.const(0, np.int64)], batch_dims=0)
        return n.op("Range", [n.const(0, np.int64), size, n.const(1, np.int64)], output_type=_I64)

    below = n.op("Subtract", [n.op("Unsqueeze", [axis(-2), n.const([1], np.int64)]), axis(-1)])
    keep = None
    for bound, offset in ((n.input(1), below), (n.input(2), n.op("Negative", [below]))):
        bound = n.op("Convert", [bound], destination_type=_I64)
        inside = n.op("LogicalOr", [n.op("Less", [bound, n.const(0, np.int64)]),
                                    n.op("LessEqual", [offset, bound])])
        keep = inside if keep is None else n.op("LogicalAnd", [keep, inside])
    zero = n.op("ConvertLike", [n.const(0, np.int64), x])
    return [n.op("Select", [keep, x, zero], auto_broadcast="numpy")]


@tf_op("BroadcastArgs")
def broadcast_args(n: TfNode):
    """The broadcast of two shapes: both padded with leading ones to one rank, then per axis
    the other's size where one is 1."""
    dtype = n.attr("T", np.dtype(np.int32))
    a, b = n.input(0), n.input(1)
    rank = n.op("Maximum", [_shape(n, a), _shape(n, b)])

    def padded(s: Port) -> Port:
        ones = n.op("Broadcast", [n.const([1], dtype), n.op("Subtract", [rank, _shape(n, s)])],
                    mode="numpy")
        return n.op("Concat", [ones, s], axis=0)

    a, b = padded(a), padded(b)
    return [n.op("Select", [n.op("Equal", [a, n.const(1, dtype)]), b, a],
                 auto_broadcast="numpy")]
