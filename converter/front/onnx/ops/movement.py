"""ONNX translators for movement ops: shapes, slicing, gather/scatter, padding, generation."""

from __future__ import annotations

import numpy as np
import onnx

from converter.front import mo_front
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.front.translator import static_rank
from converter.graph.port import Port
from converter.ir.carried import CARRIED_TYPE

I64 = np.dtype(np.int64)
INT_MAX = np.iinfo(np.int64).max


# -- helpers -------------------------------------------------------------------------------------
def known_dtype(port: Port) -> np.dtype | None:
    """The element type of a port when evident before inference (Parameter, Const, Convert);
    for a value the IR carries in another type, the ONNX type it carries."""
    node = port.node
    op = node.soft_get("op")
    if node.has_valid(CARRIED_TYPE):
        return np.dtype(node[CARRIED_TYPE])
    if op == "Const":
        return np.asarray(node.value).dtype
    if op == "Parameter" and node.has_valid("element_type"):
        return np.dtype(node["element_type"])
    if op == "Convert":
        return np.dtype(node["destination_type"])
    return None


def _dim(n: OnnxNode, x: Port, axis: int) -> Port:
    """Scalar i64 size of x along axis (folds when the shape is static)."""
    return n.op("Gather", [n.op("ShapeOf", [x], output_type=I64), np.int64(axis), np.int64(0)])


def _scalar(n: OnnxNode, x: Port, dtype: np.dtype | None = None) -> Port:
    """A one-element tensor as a scalar, converted to dtype when given."""
    if dtype is not None:
        x = n.op("Convert", [x], destination_type=dtype)
    return n.op("Reshape", [x, np.zeros(0, I64)], special_zero=False)


def _ints(n: OnnxNode, attr: str, i: int, opset_input: int) -> Port | np.ndarray | None:
    """An int list given as attribute (opset < opset_input) or as input i later on."""
    if n.opset < opset_input:
        value = n.attr(attr)
        return None if value is None else np.asarray(value, I64)
    return n.input(i)


def _ones_like(n: OnnxNode, x: Port) -> Port | np.ndarray:
    """Ones of x's shape and type: a constant when x is one, else a Broadcast of 1."""
    if x.node.soft_get("op") == "Const":
        return np.ones_like(np.asarray(x.node.value))
    return n.op("Broadcast", [np.array(1, I64), n.op("ShapeOf", [x], output_type=I64)])


# -- reshaping -----------------------------------------------------------------------------------
@onnx_op("Reshape")
def reshape(n: OnnxNode):
    zero_copies = not n.attr("allowzero", 0)
    if n.opset < 5:
        return [n.op("Reshape", [n.input(0), np.asarray(n.attr("shape"), I64)], special_zero=True)]
    return [n.op("Reshape", [n.input(0), n.input(1)], special_zero=zero_copies)]


@onnx_op("Flatten")
def flatten(n: OnnxNode):
    x, axis = n.input(0), n.attr("axis", 1)
    if axis in (0, 1):  # the common case as MO writes it: [?,4] on a dynamic batch, not [?,?]
        return [n.op("Reshape", [x, np.array([0 if axis else 1, -1], I64)], special_zero=True,
                     mo_front=mo_front.flatten(axis))]
    head = n.op("Slice", [n.op("ShapeOf", [x], output_type=I64), np.array([0], I64),
                          np.array([axis], I64), np.array([1], I64)])
    lead = n.op("ReduceProd", [head, np.array([0], I64)], keep_dims=True)
    target = n.op("Concat", [lead, np.array([-1], I64)], axis=0)
    return [n.op("Reshape", [x, target], special_zero=False, mo_front=mo_front.flatten(axis))]


@onnx_op("Transpose")
def transpose(n: OnnxNode):
    perm = n.attr("perm")
    x = n.input(0)
    if perm is None:  # reversed axes: rank-1, ..., 0
        rank = _scalar(n, n.op("ShapeOf", [n.op("ShapeOf", [x], output_type=I64)], output_type=I64))
        start = n.op("Subtract", [rank, np.int64(1)])
        return [n.op("Transpose", [x, n.op("Range", [start, np.int64(-1), np.int64(-1)],
                                           output_type=I64)])]
    return [n.op("Transpose", [x, np.asarray(perm, I64)])]


@onnx_op("Squeeze")
def squeeze(n: OnnxNode):
    axes = _ints(n, "axes", 1, 13)
    return [n.op("Squeeze", [n.input(0)] + ([axes] if axes is not None else []))]


@onnx_op("Unsqueeze")
def unsqueeze(n: OnnxNode):
    axes = _ints(n, "axes", 1, 13)
    if isinstance(axes, np.ndarray) or axes.node.soft_get("op") == "Const":
        y = n.op("Unsqueeze", [n.input(0), axes])  # (MO's ExpandDims, to legacy passes)
        y.node[mo_front.MO_FRONT] = mo_front.extracted(
            "ExpandDims", None, 2 if n.opset >= 13 else 1,
            expand_axis=np.asarray(n.attr("axes", []), np.int64))
        return [y]
    return [_unsqueeze_by_reshape(n, n.input(0), axes)]


def _unsqueeze_by_reshape(n: OnnxNode, x: Port, axes: Port) -> Port:
    """Unsqueeze with run-time axes as a Reshape, so that the output rank stays static."""
    shape = n.op("ShapeOf", [x], output_type=I64)
    axes = n.op("Reshape", [n.op("Convert", [axes], destination_type=I64), np.array([-1], I64)],
                special_zero=False)
    rank = n.op("Add", [n.op("ShapeOf", [shape], output_type=I64),
                        n.op("ShapeOf", [axes], output_type=I64)])
    positions = n.op("Range", [np.int64(0), _scalar(n, rank), np.int64(1)], output_type=I64)
    axes = n.op("Unsqueeze", [n.op("FloorMod", [axes, rank]), np.int64(0)])
    column = n.op("Unsqueeze", [positions, np.int64(1)])

    def count(compare: str) -> Port:  # per output axis: how many new axes compare true
        hits = n.op("Convert", [n.op(compare, [axes, column])], destination_type=I64)
        return n.op("ReduceSum", [hits, np.int64(1)], keep_dims=False)

    dims = n.op("Gather", [shape, n.op("Subtract", [positions, count("Less")]), np.int64(0)])
    is_new = n.op("Greater", [count("Equal"), np.int64(0)])
    target = n.op("Select", [is_new, np.int64(1), dims])
    return n.op("Reshape", [x, target], special_zero=False)


@onnx_op("Concat")
def concat(n: OnnxNode):
    inputs = [n.input(i) for i in range(n.num_inputs) if n.has_input(i)]
    return [n.op("Concat", inputs, axis=n.attr("axis", 0))]


@onnx_op("Tile")
def tile(n: OnnxNode):
    x, repeats = n.input(0), n.input(1)
    if repeats.node.soft_get("op") == "Const":
        return [n.op("Tile", [x, repeats])]
    # run-time repeats: broadcast x viewed as [1, d0, 1, d1, ...] to [r0, d0, r1, d1, ...]
    # (OpenVINO's CPU Tile gives wrong results for some run-time repeats)
    shape = n.op("ShapeOf", [x], output_type=I64)
    repeats = n.op("Convert", [repeats], destination_type=I64)
    ones = n.op("Broadcast", [np.int64(1), n.op("ShapeOf", [shape], output_type=I64)])

    def interleave(a: Port, b: Port) -> Port:
        pairs = n.op("Concat", [n.op("Unsqueeze", [p, np.int64(1)]) for p in (a, b)], axis=1)
        return n.op("Reshape", [pairs, np.array([-1], I64)], special_zero=False)

    view = n.op("Reshape", [x, interleave(ones, shape)], special_zero=False)
    spread = n.op("Broadcast", [view, interleave(repeats, shape)], mode="numpy")
    return [n.op("Reshape", [spread, n.op("Multiply", [repeats, shape])], special_zero=False)]


@onnx_op("Expand")
def expand(n: OnnxNode):
    return [n.op("Broadcast", [n.input(0), n.input(1)], mode="bidirectional")]


# -- splitting and slicing -----------------------------------------------------------------------
def _uneven_lengths(n: OnnxNode, x: Port, axis: int, parts: int) -> Port:
    """[c, ..., c, -1] with c = ceil(dim / parts): ONNX-18 num_outputs with a short last part."""
    dim = _dim(n, x, axis)
    chunk = n.op("Divide", [n.op("Add", [dim, np.int64(parts - 1)]), np.int64(parts)])
    chunks = n.op("Broadcast", [chunk, np.array([parts - 1], I64)])
    return n.op("Concat", [chunks, np.array([-1], I64)], axis=0)


@onnx_op("Split")
def split(n: OnnxNode):
    x, axis, parts = n.input(0), n.attr("axis", 0), n.num_outputs
    lengths: Port | np.ndarray | None
    if n.opset < 13:
        lengths = np.asarray(n.attr("split"), I64) if n.has_attr("split") else None
    else:
        lengths = n.input(1)
    if lengths is None and n.has_attr("num_outputs"):
        lengths = _uneven_lengths(n, x, axis, parts)
    if lengths is None:
        node = n.op_node("Split", [x, np.int64(axis)], num_splits=parts, out_ports_count=parts)
    else:
        node = n.op_node("VariadicSplit", [x, np.int64(axis), lengths], out_ports_count=parts)
    return [node.out_port(i) for i in range(parts)]


@onnx_op("Slice")
def slice_(n: OnnxNode):
    x = n.input(0)
    if n.opset < 10:
        starts, ends = np.asarray(n.attr("starts"), I64), np.asarray(n.attr("ends"), I64)
        axes = n.attr("axes")
        axes = np.asarray(axes, I64) if axes is not None else None
        mo = mo_front.extracted("AttributedSlice", None, 1, until="FrontFinish", starts=starts,
                                ends=ends, axes=axes if axes is not None else np.arange(
                                    len(starts), dtype=I64))
        return [n.op("Slice", [x, starts, ends, np.ones_like(starts), axes], mo_front=mo)]
    starts, ends, axes, steps = (n.input(i) for i in range(1, 5))
    given = {4: axes is not None, 3: steps is not None}  # (the inputs MO's Slice had)
    if steps is None:
        steps = _ones_like(n, starts)
    y = n.op("Slice", [x, starts, ends, steps, axes])
    y.node[mo_front.MO_FRONT] = mo_front.onnx_slice(given[4], given[3])
    return [y]


@onnx_op("Shape")
def shape(n: OnnxNode):
    out = n.op("ShapeOf", [n.input(0)], output_type=I64)
    start, end = n.attr("start", 0), n.attr("end")
    if start == 0 and end is None:
        return [out]
    bounds = [np.array([start], I64), np.array([INT_MAX if end is None else end], I64)]
    return [n.op("Slice", [out, *bounds, np.array([1], I64), np.array([0], I64)])]


@onnx_op("Size")
def size(n: OnnxNode):
    flat = n.op("Reshape", [n.input(0), np.array([-1], I64)], special_zero=False)
    return [_scalar(n, n.op("ShapeOf", [flat], output_type=I64))]


@onnx_op("Compress")
def compress(n: OnnxNode):
    x, axis = n.input(0), n.attr("axis")
    picked = n.op("NonZero", [n.input(1)], output_type=I64)
    picked = n.op("Reshape", [picked, np.array([-1], I64)], special_zero=False)
    if axis is None:
        x, axis = n.op("Reshape", [x, np.array([-1], I64)], special_zero=False), 0
    return [n.op("Gather", [x, picked, np.int64(axis)])]


# -- gather and scatter --------------------------------------------------------------------------
@onnx_op("Gather")
def gather(n: OnnxNode):
    y = n.op("Gather", [n.input(0), n.input(1), np.int64(n.attr("axis", 0))])
    y.node[mo_front.MO_FRONT] = mo_front.extracted(  # (MO's form, to legacy passes)
        "AttributedGather", "Gather", 2, axis=np.int64(n.attr("axis", 0)))
    return [y]


@onnx_op("GatherElements")
def gather_elements(n: OnnxNode):
    return [n.op("GatherElements", [n.input(0), n.input(1)], axis=n.attr("axis", 0))]


@onnx_op("GatherND")
def gather_nd(n: OnnxNode):
    return [n.op("GatherND", [n.input(0), n.input(1)], batch_dims=n.attr("batch_dims", 0))]


_REDUCTIONS = {"none": "none", "add": "sum", "mul": "prod", "min": "min", "max": "max"}


@onnx_op("ScatterElements", "Scatter")
def scatter_elements(n: OnnxNode):
    inputs = [n.input(0), n.input(1), n.input(2), np.int64(n.attr("axis", 0))]
    reduction = _REDUCTIONS[n.attr("reduction", "none")]
    return [n.op("ScatterElementsUpdate", inputs, reduction=reduction, use_init_val=True)]


@onnx_op("ScatterND")
def scatter_nd(n: OnnxNode):
    reduction = _REDUCTIONS[n.attr("reduction", "none")]
    return [n.op("ScatterNDUpdate", [n.input(0), n.input(1), n.input(2)], reduction=reduction)]


# -- padding -------------------------------------------------------------------------------------
def _full_pads(n: OnnxNode, x: Port, pads: Port, axes: Port | None) -> tuple[Port, Port]:
    """pads_begin, pads_end over every axis from ONNX pads [b..., e...] (over axes if given)."""
    halves = n.op_node("Split", [pads, np.int64(0)], num_splits=2, out_ports_count=2)
    begin, end = halves.out_port(0), halves.out_port(1)
    if axes is None:
        return begin, end
    rank = n.op("ShapeOf", [n.op("ShapeOf", [x], output_type=I64)], output_type=I64)
    axes = n.op("FloorMod", [n.op("Convert", [axes], destination_type=I64), rank])
    zeros = n.op("Broadcast", [np.int64(0), rank])
    return tuple(n.op("ScatterUpdate", [zeros, axes, p, np.int64(0)]) for p in (begin, end))


@onnx_op("Pad")
def pad(n: OnnxNode):
    x, mode = n.input(0), n.attr("mode", "constant")
    if n.opset < 11:
        pads = np.asarray(n.attr("pads", n.attr("paddings")), I64)
        half = pads.size // 2
        begin, end, value = pads[:half], pads[half:], np.float32(n.attr("value", 0.0))
        value = n.op("ConvertLike", [value, x])
    else:
        begin, end = _full_pads(n, x, n.input(1), n.input(3))
        value = n.input(2)
        if value is not None:
            value = _scalar(n, value)
        else:  # ovc gives the pad value of 0 as an input too, in every mode
            value = n.op("ConvertLike", [np.float32(0), x])
    if mode == "wrap":
        return [_wrap_pad(n, x, begin, end)]
    y = n.op("Pad", [x, begin, end, value], pad_mode=mode)
    if n.opset < 11:  # (MO's form, to legacy front passes)
        y.node[mo_front.MO_FRONT] = mo_front.attributed_pad(
            np.concatenate([begin, end]), mode, float(n.attr("value", 0.0)))
    elif n.const_value(1) is not None and not n.has_input(3):
        y.node[mo_front.MO_FRONT] = mo_front.framework_pad("ONNXPad", n.const_value(1), mode,
                                                           n.has_input(2))
    return [y]


def _wrap_pad(n: OnnxNode, x: Port, begin: Port | np.ndarray, end: Port | np.ndarray) -> Port:
    """Pad in 'wrap' mode (no OpenVINO mode): per axis, Gather at indices taken modulo the dim."""
    rank = static_rank(x)
    if rank is None:
        n.reject("mode 'wrap' needs the input rank before inference",
                 "give the model's inputs a shape (--input_shape)")
    for axis in range(rank):
        b, e = (n.op("Gather", [p, np.int64(axis), np.int64(0)]) for p in (begin, end))
        dim = _dim(n, x, axis)
        start, stop = n.op("Negative", [b]), n.op("Add", [dim, e])
        positions = n.op("Range", [start, stop, np.int64(1)], output_type=I64)
        x = n.op("Gather", [x, n.op("FloorMod", [positions, dim]), np.int64(axis)])
    return x



# -- generation ----------------------------------------------------------------------------------
def _typed_like(n: OnnxNode, op: str, inputs: list, like: Port, **attrs) -> Port:
    """op with output_type of `like`'s element type (a ConvertLike when it is not yet known)."""
    dtype = known_dtype(like)
    out_type = dtype if dtype is not None else np.dtype(np.float32)
    out = n.op(op, inputs, output_type=out_type, **attrs)
    return out if dtype is not None else n.op("ConvertLike", [out, like])


@onnx_op("Range")
def range_(n: OnnxNode):
    """Range; one-element inputs taken as the scalars ONNX asks for (AffineGrid's function body
    passes [1]-shaped ones, which OpenVINO's Range refuses)."""
    inputs = [_scalar(n, n.input(i)) for i in range(3)]
    return [_typed_like(n, "Range", inputs, n.input(0))]


@onnx_op("ConstantOfShape")
def constant_of_shape(n: OnnxNode):
    value = n.attr("value")
    value = np.zeros((), np.float32) if value is None else np.asarray(value).reshape(())
    y = n.op("Broadcast", [value, n.input(0)], mode="numpy")
    y.node[mo_front.MO_FRONT] = mo_front.constant_of_shape(value)  # (to legacy front passes)
    return [y]


@onnx_op("EyeLike")
def eye_like(n: OnnxNode):
    x = n.input(0)
    inputs = [_dim(n, x, 0), _dim(n, x, 1), np.int64(n.attr("k", 0))]
    if n.has_attr("dtype"):
        dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(n.attr("dtype")))
        return [n.op("Eye", inputs, output_type=dtype)]
    return [_typed_like(n, "Eye", inputs, x)]


@onnx_op("OneHot")
def one_hot(n: OnnxNode):
    depth = _scalar(n, n.input(1), I64)
    values = n.input(2)
    off, on = (n.op("Gather", [values, np.int64(i), np.int64(0)]) for i in (0, 1))
    indices = n.op("Convert", [n.input(0)], destination_type=I64)  # ONNX's may be floats
    # ONNX counts negative indices from the end
    return [n.op("OneHot", [indices, depth, on, off], axis=n.attr("axis", -1),
                 negative_indices_mode="normalize")]


@onnx_op("NonZero")
def non_zero(n: OnnxNode):
    return [n.op("NonZero", [n.input(0)], output_type=I64)]


@onnx_op("ReverseSequence")
def reverse_sequence(n: OnnxNode):
    return [n.op("ReverseSequence", [n.input(0), n.input(1)],
                 batch_axis=n.attr("batch_axis", 1), seq_axis=n.attr("time_axis", 0))]


@onnx_op("Trilu")
def trilu(n: OnnxNode):
    x = n.input(0)
    k = _scalar(n, n.input(1), I64) if n.has_input(1) else np.int64(0)
    rows = n.op("Range", [np.int64(0), _dim(n, x, -2), np.int64(1)], output_type=I64)
    cols = n.op("Range", [np.int64(0), _dim(n, x, -1), np.int64(1)], output_type=I64)
    diagonal = n.op("Subtract", [n.op("Unsqueeze", [cols, np.int64(0)]),
                                 n.op("Unsqueeze", [rows, np.int64(1)])])
    keep = n.op("GreaterEqual" if n.attr("upper", 1) else "LessEqual", [diagonal, k])
    zero = n.op("ConvertLike", [np.float32(0), x])
    return [n.op("Select", [keep, x, zero])]
