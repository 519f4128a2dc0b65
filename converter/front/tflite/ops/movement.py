"""TensorFlow Lite translators for data movement: reshaping, concatenation, padding,
transposition, slicing, gathering, splitting, resizing (NHWC, through Interpolate on the
spatial axes)."""

from __future__ import annotations

import numpy as np

from converter.front.resize_modes import tf_resize_modes
from converter.front.tf.ops._layout import to_nchw, to_nhwc
from converter.front.tflite.translator import TfliteNode, tflite_op
from converter.graph.port import Port

_I64 = np.dtype(np.int64)


def _i64(n: TfliteNode, port: Port) -> Port:
    return n.folded("Convert", [port], destination_type=_I64)


@tflite_op("RESHAPE")
def reshape(n: TfliteNode):
    if n.input(1) is not None and n.rank(1) == 1:
        shape = _i64(n, n.input(1))
    else:  # old files: the new shape only in the options
        shape = n.const(n.attr("new_shape") or list(n.out_tensor().shape), np.int64)
    return [n.op("Reshape", [n.input(0), shape], special_zero=False)]


@tflite_op("SQUEEZE")
def squeeze(n: TfliteNode):
    dims = n.attr("squeeze_dims") or []
    axes = [n.const(dims, np.int64)] if dims else []
    return [n.op("Squeeze", [n.input(0), *axes])]


@tflite_op("EXPAND_DIMS")
def expand_dims(n: TfliteNode):
    return [n.op("Unsqueeze", [n.input(0), _i64(n, n.input(1))])]


@tflite_op("CONCATENATION")
def concatenation(n: TfliteNode):
    return [n.op("Concat", [n.input(i) for i in range(n.num_inputs)], axis=n.attr("axis", 0))]


def _pads(n: TfliteNode) -> tuple[Port, Port]:
    pads = _i64(n, n.input(1))
    return tuple(n.folded("Gather", [pads, np.array(i, np.int64), np.array(1, np.int64)],
                          batch_dims=0) for i in (0, 1))


@tflite_op("PAD", "PADV2")
def pad(n: TfliteNode):
    begin, end = _pads(n)
    value = [n.input(2)] if n.input(2) is not None else []
    return [n.op("Pad", [n.input(0), begin, end, *value], pad_mode="constant")]


@tflite_op("MIRROR_PAD")
def mirror_pad(n: TfliteNode):
    begin, end = _pads(n)
    mode = "symmetric" if n.attr("mode", 0) else "reflect"
    return [n.op("Pad", [n.input(0), begin, end], pad_mode=mode)]


@tflite_op("TRANSPOSE")
def transpose(n: TfliteNode):
    return [n.op("Transpose", [n.input(0), _i64(n, n.input(1))])]


def _bits(mask: int, count: int) -> list[int]:
    return [(int(mask) >> i) & 1 for i in range(count)]


@tflite_op("STRIDED_SLICE")
def strided_slice(n: TfliteNode):
    if n.attr("offset", False):
        n.reject("offset=True (end counted from begin) is not supported", "export without it")
    count = max(n.tensor(1).shape[0], 1)
    masks = {k: _bits(n.attr(k, 0), count) for k in (
        "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")}
    inputs = [n.input(0)] + [_i64(n, n.input(i)) for i in (1, 2, 3)]
    return [n.op("StridedSlice", inputs, **masks)]


@tflite_op("SLICE")
def slice_(n: TfliteNode):
    """begin and size (-1: to the end) as Slice-8's start and stop."""
    begin, size = _i64(n, n.input(1)), _i64(n, n.input(2))
    big = np.int64(np.iinfo(np.int64).max)
    end = n.op("Select", [n.op("Less", [size, np.int64(0)]), big,
                          n.op("Add", [begin, size])])
    return [n.op("Slice", [n.input(0), begin, end, n.op("Broadcast", [
        np.int64(1), n.op("ShapeOf", [begin])])])]


@tflite_op("GATHER")
def gather(n: TfliteNode):
    return [n.op("Gather", [n.input(0), n.input(1), n.const(n.attr("axis", 0), np.int64)],
                 batch_dims=n.attr("batch_dims", 0))]


@tflite_op("GATHER_ND")
def gather_nd(n: TfliteNode):
    return [n.op("GatherND", [n.input(0), n.input(1)], batch_dims=0)]


@tflite_op("SPLIT")
def split(n: TfliteNode):
    """Inputs: axis, data."""
    count = n.attr("num_splits", 1)
    node = n.op_node("Split", [n.input(1), n.input(0)], num_splits=count)
    node["out_ports_count"] = count
    return [node.out_port(i) for i in range(count)]


@tflite_op("SPLIT_V")
def split_v(n: TfliteNode):
    """Inputs: data, sizes, axis."""
    count = len(n.pb.outputs)
    node = n.op_node("VariadicSplit", [n.input(0), n.input(2), _i64(n, n.input(1))])
    node["out_ports_count"] = count
    return [node.out_port(i) for i in range(count)]


@tflite_op("PACK")
def pack(n: TfliteNode):
    axis = n.const([n.attr("axis", 0)], np.int64)
    return [n.op("Concat", [n.op("Unsqueeze", [n.input(i), axis]) for i in range(n.num_inputs)],
                 axis=n.attr("axis", 0))]


@tflite_op("UNPACK")
def unpack(n: TfliteNode):
    count, axis = len(n.pb.outputs), n.attr("axis", 0)
    node = n.op_node("Split", [n.input(0), n.const(axis, np.int64)], num_splits=count)
    node["out_ports_count"] = count
    return [n.op("Squeeze", [node.out_port(i), n.const([axis], np.int64)]) for i in range(count)]


@tflite_op("TILE")
def tile(n: TfliteNode):
    return [n.op("Tile", [n.input(0), _i64(n, n.input(1))])]


@tflite_op("BROADCAST_TO")
def broadcast_to(n: TfliteNode):
    return [n.op("Broadcast", [n.input(0), _i64(n, n.input(1))])]


@tflite_op("SHAPE")
def shape(n: TfliteNode):
    return [n.op("ShapeOf", [n.input(0)], output_type=n.out_tensor().dtype)]


@tflite_op("FILL")
def fill(n: TfliteNode):
    return [n.op("Broadcast", [n.input(1), _i64(n, n.input(0))])]


def _block_op(kind: str):
    def translate(n: TfliteNode):
        y = n.op(kind, [to_nchw(n, n.input(0), 4)], block_size=n.attr("block_size", 1),
                 mode="blocks_first")
        return [to_nhwc(n, y, 4)]

    return translate


tflite_op("SPACE_TO_DEPTH")(_block_op("SpaceToDepth"))
tflite_op("DEPTH_TO_SPACE")(_block_op("DepthToSpace"))


def _coordinates(n: TfliteNode, nearest: bool) -> dict:
    return tf_resize_modes(n.attr("align_corners", False), n.attr("half_pixel_centers", False),
                           nearest)


@tflite_op("RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR")
def resize(n: TfliteNode):
    nearest = n.op_type == "RESIZE_NEAREST_NEIGHBOR"
    attrs = {"mode": "nearest" if nearest else "linear_onnx", "shape_calculation_mode": "sizes",
             **_coordinates(n, nearest)}
    y = n.op("Interpolate", [to_nchw(n, n.input(0), 4), _i64(n, n.input(1)),
                             n.const([2, 3], np.int64)], **attrs)
    return [to_nhwc(n, y, 4)]


@tflite_op("SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND")
def space_batch_nd(n: TfliteNode):
    """Inputs: data, block shape [M], paddings or crops [M, 2] (constants in TFLite files)."""
    block, edges = n.const_value(1), n.const_value(2)
    if block is None or edges is None:
        n.reject("the block shape or paddings are not constants", "export with static ones")
    rest = [0] * (n.rank(0) - 1 - block.size)
    edges = np.asarray(edges, np.int64).reshape(-1, 2)
    kind = "SpaceToBatch" if n.op_type == "SPACE_TO_BATCH_ND" else "BatchToSpace"
    return [n.op(kind, [n.input(0), n.const([1, *block.tolist(), *[1] * len(rest)], np.int64),
                        n.const([0, *edges[:, 0], *rest], np.int64),
                        n.const([0, *edges[:, 1], *rest], np.int64)])]
