"""TensorFlow translators that move data or pass it through: Identity/NoOp, Reshape, Squeeze,
ExpandDims, Concat, Pack, Transpose, Pad, Shape, (Strided)Slice, Split, Gather, Fill, Tile,
Range, ReverseV2, DepthToSpace/SpaceToDepth and the reductions (Mean, Sum, Max, Min, Prod)."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.tf.ops._fold import constant_input
from converter.front.tf.ops._layout import channels_last, to_nchw, to_nhwc
from converter.front.tf.ops.spectral import complex_strided_slice, is_complex
from converter.front.tf.translator import TfNode, tf_op
from converter.graph.port import Port

_I64 = np.dtype(np.int64)
_REDUCE = {"Mean": "ReduceMean", "Sum": "ReduceSum", "Max": "ReduceMax", "Min": "ReduceMin",
           "Prod": "ReduceProd", "All": "ReduceLogicalAnd", "Any": "ReduceLogicalOr"}


def _const_input(n: TfNode, i: int, what: str) -> np.ndarray:
    value = constant_input(n, i)
    if value is None:
        n.reject(f"{what} (input {i}) must be a constant",
                 "make it a constant in the frozen graph, or give the inputs a shape "
                 "(--input_shape)")
    return value


@tf_op("Identity", "StopGradient", "Snapshot", "PreventGradient", "PlaceholderWithDefault",
       "CheckNumerics", "EnsureShape", "ReadVariableOp")
def identity(n: TfNode):
    return [n.input(0)]


@tf_op("IdentityN")
def identity_n(n: TfNode):
    return [n.input(i) for i in range(n.num_inputs)]


@tf_op("NoOp", "Assert")
def no_op(n: TfNode):
    """Nothing (an Assert checks at run time only, as ovc and MO drop it)."""
    return []


@tf_op("Reshape")
def reshape(n: TfNode):
    return [n.op("Reshape", [n.input(0), n.input(1)], special_zero=False)]


@tf_op("Squeeze")
def squeeze(n: TfNode):
    axes = list(n.attr("squeeze_dims", []) or n.attr("axis", []))
    if not axes:
        return [n.op("Squeeze", [n.input(0)])]
    return [n.op("Squeeze", [n.input(0), n.const(axes, np.int64)])]


@tf_op("ExpandDims")
def expand_dims(n: TfNode):
    return [n.op("Unsqueeze", [n.input(0), n.input(1)])]


@tf_op("ConcatV2")
def concat_v2(n: TfNode):
    count = n.num_inputs - 1
    axis = int(_const_input(n, count, "axis"))
    y = n.op("Concat", [n.input(i) for i in range(count)], axis=axis,
             mo_op="ConcatV2")  # (MO's op name, to legacy passes; its front form too)
    y.node[mo_front.MO_FRONT] = mo_front.concat_v2(axis, count)
    return [y]


@tf_op("Concat")
def concat(n: TfNode):
    axis = int(_const_input(n, 0, "concat_dim"))
    return [n.op("Concat", [n.input(i) for i in range(1, n.num_inputs)], axis=axis)]


@tf_op("Pack")
def pack(n: TfNode):
    axis = int(n.attr("axis", 0))
    parts = [n.op("Unsqueeze", [n.input(i), n.const([axis], np.int64)])
             for i in range(n.num_inputs)]
    y = n.op("Concat", parts, axis=axis)
    y.node[mo_front.MO_FRONT] = mo_front.pack(axis, n.num_inputs)  # (to legacy front passes)
    return [y]


@tf_op("Unpack")
def unpack(n: TfNode):
    axis, num = int(n.attr("axis", 0)), int(n.attr("num"))
    split = n.op_node("Split", [n.input(0), n.const(axis, np.int64)], num_splits=num)
    return [n.op("Squeeze", [split.out_port(i), n.const([axis], np.int64)]) for i in range(num)]


@tf_op("Split")
def split(n: TfNode):
    num = int(n.attr("num_split"))
    node = n.op_node("Split", [n.input(1), n.input(0)], num_splits=num)
    return [node.out_port(i) for i in range(num)]


@tf_op("SplitV")
def split_v(n: TfNode):
    num = int(n.attr("num_split"))
    node = n.op_node("VariadicSplit", [n.input(0), n.input(2), n.input(1)])
    node["out_ports_count"] = num
    return [node.out_port(i) for i in range(num)]


@tf_op("Transpose")
def transpose(n: TfNode):
    return [n.op("Transpose", [n.input(0), n.input(1)])]


def _pads(n: TfNode) -> tuple[Port, Port]:
    value = n.const_value(1)
    if value is not None:
        value = np.asarray(value, dtype=np.int64).reshape(-1, 2)
        return n.const(value[:, 0]), n.const(value[:, 1])
    pads = n.op("Convert", [n.input(1)], destination_type=_I64)
    return tuple(n.op("Gather", [pads, n.const(i, np.int64), n.const(1, np.int64)], batch_dims=0)
                 for i in (0, 1))


def _mo_pad(n: TfNode, y: Port, mode: str) -> list[Port]:
    """y, marked MO's TFPad where the paddings are constant."""
    pairs = n.const_value(1)
    if pairs is not None:
        y.node[mo_front.MO_FRONT] = mo_front.framework_pad("TFPad", pairs, mode, n.num_inputs > 2)
    return [y]


@tf_op("Pad", "PadV2")
def pad(n: TfNode):
    begin, end = _pads(n)
    x = n.input(0)  # ovc gives Pad's value of 0 as an input too
    value = n.input(2) if n.num_inputs > 2 else n.op("ConvertLike", [np.float32(0), x])
    return _mo_pad(n, n.op("Pad", [x, begin, end, value], pad_mode="constant"), "constant")


@tf_op("MirrorPad")
def mirror_pad(n: TfNode):
    begin, end = _pads(n)
    mode = {"REFLECT": "reflect", "SYMMETRIC": "symmetric"}[n.attr("mode", "REFLECT")]
    x = n.input(0)  # with a pad value of 0, unused, as ovc writes it
    pad = n.op("Pad", [x, begin, end, n.op("ConvertLike", [np.float32(0), x])], pad_mode=mode)
    return _mo_pad(n, pad, mode)


@tf_op("Shape")
def shape(n: TfNode):
    return [n.op("ShapeOf", [n.input(0)], output_type=n.attr("out_type", np.dtype(np.int32)))]


def _bits(mask: int, count: int) -> list[int]:
    return [(int(mask) >> i) & 1 for i in range(count)]


@tf_op("StridedSlice")
def strided_slice(n: TfNode):
    begin = n.const_value(1)
    count = begin.size if begin is not None else 1 + max(
        int(n.attr(k, 0)).bit_length() for k in ("begin_mask", "end_mask", "ellipsis_mask",
                                                   "new_axis_mask", "shrink_axis_mask"))
    masks = {k: _bits(n.attr(k, 0), count) for k in ("begin_mask", "end_mask", "ellipsis_mask",
                                                        "new_axis_mask", "shrink_axis_mask")}
    if is_complex(n):
        return [complex_strided_slice(n, masks)]
    return [n.op("StridedSlice", [n.input(0), n.input(1), n.input(2), n.input(3)], **masks)]


@tf_op("Slice")
def slice_(n: TfNode):
    begin = np.asarray(_const_input(n, 1, "begin"), dtype=np.int64)
    size = np.asarray(_const_input(n, 2, "size"), dtype=np.int64)
    end = np.where(size < 0, 0, begin + size)
    end_mask = [int(s < 0) for s in size]
    return [n.op("StridedSlice", [n.input(0), n.const(begin), n.const(end),
                                  n.const(np.ones_like(begin))],
                 begin_mask=[0] * begin.size, end_mask=end_mask)]


@tf_op("GatherV2")
def gather_v2(n: TfNode):
    batch_dims = int(n.attr("batch_dims", 0))
    axis = constant_input(n, 2)
    if batch_dims == 1 and axis is not None and int(axis) == 1:
        return [gather_rows(n, n.input(0), n.input(1))]
    return [n.op("Gather", [n.input(0), n.input(1), n.input(2)], batch_dims=batch_dims)]


def gather_rows(n: TfNode, data: Port, index: Port) -> Port:
    """Gather on axis 1 with batch_dims 1 as a plain Gather of the flattened [B * N, ...] rows
    at index + b * N (OpenVINO 2026.4's CPU Gather with batch_dims 1 reads wrong rows, or
    crashes, when the batch is 1, as in an SSD's pre-NMS top-k)."""
    i64 = np.dtype(np.int64)
    shape = n.op("ShapeOf", [data], output_type=i64)
    rows = n.op("Reshape", [data, n.op("Concat", [
        n.const([-1], np.int64), n.op("StridedSlice", [
            shape, n.const([2], np.int64), n.const([0], np.int64), n.const([1], np.int64)],
            begin_mask=[0], end_mask=[1])], axis=0)], special_zero=False)
    index = n.op("Convert", [index], destination_type=i64)
    batch, count = (n.op("Gather", [shape, n.const(k, np.int64), n.const(0, np.int64)],
                         batch_dims=0) for k in (0, 1))
    offsets = n.op("Multiply", [n.op("Range", [n.const(0, np.int64), batch,
                                               n.const(1, np.int64)], output_type=i64), count])
    rank = n.op("ShapeOf", [n.op("ShapeOf", [index], output_type=i64)], output_type=i64)
    column = n.op("Concat", [n.const([-1], np.int64), n.op("Broadcast", [
        n.const([1], np.int64), n.op("Subtract", [rank, n.const([1], np.int64)])],
        mode="numpy")], axis=0)
    flat = n.op("Add", [index, n.op("Reshape", [offsets, column], special_zero=False)])
    return n.op("Gather", [rows, flat, n.const(0, np.int64)], batch_dims=0)


@tf_op("Gather")
def gather(n: TfNode):
    return [n.op("Gather", [n.input(0), n.input(1), n.const(0, np.int64)], batch_dims=0)]


@tf_op("Fill")
def fill(n: TfNode):
    return [n.op("Broadcast", [n.input(1), n.input(0)], mode="numpy")]


@tf_op("Tile")
def tile(n: TfNode):
    return [n.op("Tile", [n.input(0), n.input(1)])]


@tf_op("Range")
def range_(n: TfNode):
    return [n.op("Range", [n.input(0), n.input(1), n.input(2)],
                 output_type=n.attr("Tidx", np.dtype(np.int32)))]


def _reduce(kind: str):
    def translate(n: TfNode):
        keep = bool(n.attr("keep_dims", False))
        return [n.op(kind, [n.input(0), n.input(1)], keep_dims=keep)]

    return translate


for _tf, _ov in _REDUCE.items():
    tf_op(_tf)(_reduce(_ov))


@tf_op("ReverseV2")
def reverse_v2(n: TfNode):
    axes = np.asarray(_const_input(n, 1, "axis"), dtype=np.int64).reshape(-1)
    ones = np.ones_like(axes)
    stop = np.full_like(axes, np.iinfo(np.int64).min)
    return [n.op("Slice", [n.input(0), n.const(-ones), n.const(stop), n.const(-ones),
                           n.const(axes)])]


@tf_op("DepthToSpace", "SpaceToDepth")
def depth_space(n: TfNode):
    # TF splits the depth as [block, block, C]: the IR's blocks_first
    attrs = {"block_size": int(n.attr("block_size")), "mode": "blocks_first"}
    if not channels_last(n):
        return [n.op(n.op_type, [n.input(0)], **attrs)]
    return [to_nhwc(n, n.op(n.op_type, [to_nchw(n, n.input(0), 4)], **attrs), 4)]
