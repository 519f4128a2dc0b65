"""ONNX translators for reductions (the global poolings too), TopK/ArgMax/ArgMin,
CumSum/CumProd, Einsum, DFT, NMS and Unique."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

_I64 = np.dtype(np.int64)

# ONNX reduce op -> (opset op, opset where `axes` became an input)
_DIRECT = {
    "ReduceSum": ("ReduceSum", 13),
    "ReduceMean": ("ReduceMean", 18),
    "ReduceMax": ("ReduceMax", 18),
    "ReduceMin": ("ReduceMin", 18),
    "ReduceProd": ("ReduceProd", 18),
    "ReduceL1": ("ReduceL1", 18),
    "ReduceL2": ("ReduceL2", 18),
}


# -- helpers ------------------------------------------------------------------------------------
def _source_info(port: Port) -> tuple[tuple[int, ...] | None, np.dtype | None]:
    """Shape and type of a graph input or initializer feeding a port ((None, None) otherwise)."""
    node = port.node
    if node.soft_get("op") == "Const":
        value = np.asarray(node.value)
        return value.shape, value.dtype
    if node.soft_get("op") == "Parameter":
        return node.soft_get("shape", None), node.soft_get("element_type", None)
    return None, None


def axes_from(n: OnnxNode, x: int, start: int) -> Port:
    """The axes [start, rank) of input x (negative start counts from the end)."""
    rank = n.static_rank(x)
    if start < 0:
        return n.const(np.arange(start, 0), np.int64)
    if rank is not None:
        return n.const(np.arange(start, rank), np.int64)
    rank_1d = n.op("ShapeOf", [n.op("ShapeOf", [n.input(x)])], output_type=np.dtype(np.int64))
    rank_port = n.op("Squeeze", [rank_1d, n.const([0], np.int64)])
    return n.op("Range", [n.const(start, np.int64), rank_port, n.const(1, np.int64)],
                output_type=np.dtype(np.int64))


def _rank(n: OnnxNode, x: Port) -> Port:
    """The rank of x as a [1] tensor (folded to a constant when the shape is known)."""
    return n.op("ShapeOf", [n.op("ShapeOf", [x], output_type=_I64)], output_type=_I64)


def _all_axes(n: OnnxNode, x: Port) -> Port:
    """Range(0, rank(x)): the axes input that reduces every axis."""
    rank = n.op("Squeeze", [_rank(n, x), np.array([0], dtype=np.int64)])
    return n.op("Range", [np.int64(0), rank, np.int64(1)], output_type=_I64)


def _reduce_axes(n: OnnxNode, since_input: int) -> Port | None:
    """The axes to reduce; ONNX's missing/empty axes mean all axes, or none (None) under noop."""
    x = n.input(0)
    if n.opset >= since_input:
        given = n.input(1)
        shape = _source_info(given)[0] if given is not None else None
        if given is not None and (shape is None or np.prod(shape, dtype=np.int64) > 0):
            return given
    else:
        axes = n.attr("axes")
        if axes:
            return n.const(np.array(axes, dtype=np.int64))
    return None if n.attr("noop_with_empty_axes", 0) else _all_axes(n, x)


def _reduce(n: OnnxNode, op: str, x: Port, since: int, keep: bool | None = None) -> Port:
    """op over the node's axes; x itself under noop_with_empty_axes."""
    keep_dims = bool(n.attr("keepdims", 1)) if keep is None else keep
    axes = _reduce_axes(n, since)
    if axes is None:
        return x
    rank, count = n.static_rank(0), _source_info(axes)[0]
    if keep_dims or axes.node.soft_get("op") == "Const" or rank is None or count is None:
        return n.op(op, [x, axes], keep_dims=keep_dims)
    return _drop_axes(n, n.op(op, [x, axes], keep_dims=True), axes, rank, int(count[0]))


def _drop_axes(n: OnnxNode, y: Port, axes: Port, rank: int, count: int) -> Port:
    """y (reduced with its dims kept) without the axes given at run time, by a Reshape to a
    shape of static length: OpenVINO infers no rank for a reduction over such axes, and its CPU
    refuses a dynamic rank. The kept positions are the rank - count smallest of
    reduced * rank + position."""
    positions = np.arange(rank, dtype=np.int64)
    hits = n.op("Equal", [n.op("Unsqueeze", [n.op("FloorMod", [axes, np.int64(rank)]),
                                             np.int64(1)]), positions])
    reduced = n.op("Convert", [n.op("ReduceLogicalOr", [hits, np.int64(0)], keep_dims=False)],
                   destination_type=_I64)
    key = n.op("Add", [n.op("Multiply", [reduced, np.int64(rank)]), positions])
    kept = n.op_node("TopK", [key, np.int64(rank - count)], axis=0, mode="min", sort="value",
                     index_element_type=_I64).out_port(1)
    shape = n.op("Gather", [n.op("ShapeOf", [y], output_type=_I64), kept, np.int64(0)])
    return n.op("Reshape", [y, shape], special_zero=False)


def _scalar(n: OnnxNode, i: int, dtype: type) -> Port:
    """ONNX input i (a scalar or a [1] tensor) as a scalar."""
    value = n.const_value(i)
    if value is not None:
        return n.const(np.asarray(value, dtype=dtype).reshape(()))
    return n.op("Squeeze", [n.input(i)])


# -- reductions ---------------------------------------------------------------------------------
def _direct(target: str, since: int):
    def translate(n: OnnxNode):
        x = n.input(0)
        if _source_info(x)[1] != np.bool_:
            return [_reduce(n, target, x, since)]
        # boolean max/min: the opset arithmetic reductions take numbers only
        y = _reduce(n, target, n.op("Convert", [x], destination_type=np.dtype(np.uint8)), since)
        return [n.op("Convert", [y], destination_type=np.dtype(np.bool_))]

    return translate


for _onnx, (_target, _since) in _DIRECT.items():
    onnx_op(_onnx)(_direct(_target, _since))


@onnx_op("ReduceLogSum")
def reduce_log_sum(n: OnnxNode):
    return [n.op("Log", [_reduce(n, "ReduceSum", n.input(0), 18)])]


@onnx_op("ReduceSumSquare")
def reduce_sum_square(n: OnnxNode):
    x = n.input(0)
    return [_reduce(n, "ReduceSum", n.op("Multiply", [x, x]), 18)]


@onnx_op("ReduceLogSumExp")
def reduce_log_sum_exp(n: OnnxNode):
    """log(sum(exp(x - max))) + max, the numerically stable form."""
    x = n.input(0)
    top = _reduce(n, "ReduceMax", x, 18, keep=True)
    total = _reduce(n, "ReduceSum", n.op("Exp", [n.op("Subtract", [x, top])]), 18)
    if not n.attr("keepdims", 1):
        top = _reduce(n, "ReduceMax", x, 18)
    return [n.op("Add", [n.op("Log", [total]), top])]


# -- sorting ------------------------------------------------------------------------------------
@onnx_op("TopK")
def top_k(n: OnnxNode):
    k = n.const(np.int64(n.attr("k"))) if n.opset < 10 else _scalar(n, 1, np.int64)
    mode = "max" if n.attr("largest", 1) else "min"
    sort = "value" if n.attr("sorted", 1) else "none"
    node = n.op_node("TopK", [n.input(0), k], axis=n.attr("axis", -1), mode=mode, sort=sort,
                     index_element_type=_I64, stable=True, out_ports_count=2)
    if n.opset < 10:
        node[mo_front.MO_FRONT] = mo_front.top_k_1(int(n.attr("k")))
    return [node.out_port(0), node.out_port(1)]


def _arg(mode: str):
    """ArgMax/ArgMin: TopK with k=1 (last index among ties via a reversed axis)."""

    def translate(n: OnnxNode):
        x, axis = n.input(0), n.attr("axis", 0)
        last = bool(n.attr("select_last_index", 0))
        axis_c = np.array([axis], dtype=np.int64)
        if last:
            lowest = np.array([np.iinfo(np.int64).min], dtype=np.int64)
            x = n.op("Slice", [x, np.array([-1]), lowest, np.array([-1]), axis_c])
        index = n.op_node(
            "TopK", [x, np.int64(1)], axis=axis, mode=mode, sort="value",
            index_element_type=_I64, stable=True, out_ports_count=2,
            remove_values_output=True,  # MO's mark: no Result for the unused values output
        ).out_port(1)
        if last:
            size = n.op("Gather", [n.op("ShapeOf", [x], output_type=_I64), axis_c, np.int64(0)])
            index = n.op("Subtract", [n.op("Subtract", [size, np.int64(1)]), index])
        if not n.attr("keepdims", 1):
            index = n.op("Squeeze", [index, axis_c])
        return [index]

    return translate


onnx_op("ArgMax")(_arg("max"))
onnx_op("ArgMin")(_arg("min"))


@onnx_op("Unique")
def unique(n: OnnxNode):
    inputs = [n.input(0)]
    if n.has_attr("axis"):
        inputs.append(n.const(np.int64(n.attr("axis"))))
    node = n.op_node(
        "Unique", inputs, sorted=bool(n.attr("sorted", 1)),
        index_element_type=_I64, count_element_type=_I64, out_ports_count=4,
    )
    return [node.out_port(i) for i in range(4)]


# -- misc ---------------------------------------------------------------------------------------
@onnx_op("CumSum")
def cum_sum(n: OnnxNode):
    return [n.op(
        "CumSum", [n.input(0), n.input(1)],
        exclusive=bool(n.attr("exclusive", 0)), reverse=bool(n.attr("reverse", 0)),
    )]


@onnx_op("CumProd")
def cum_prod(n: OnnxNode):
    """The product over each position's prefix: x spread on a new axis i, the factors j past
    i's prefix replaced by 1, then ReduceProd over j."""
    x, one, rank = n.input(0), np.array(1, np.int64), n.static_rank(0)
    if rank is None:
        n.reject("cannot tell the input's rank", "give the model's inputs a shape")
    axis = n.op("FloorMod", [n.op("Convert", [n.op("Squeeze", [n.input(1)])],
                                  destination_type=_I64), np.array(rank, np.int64)])
    size = n.op("Gather", [n.op("ShapeOf", [x], output_type=_I64), axis, np.array(0, np.int64)])
    steps = n.op("Range", [np.array(0, np.int64), size, one], output_type=_I64)
    i, j = n.op("Unsqueeze", [steps, one]), steps
    compare = {(0, 0): "LessEqual", (1, 0): "Less", (0, 1): "GreaterEqual", (1, 1): "Greater"}
    taken = n.op(compare[n.attr("exclusive", 0), n.attr("reverse", 0)], [j, i])
    # taken [L, L] at axes (axis, axis + 1) of x's rank + 1, the other axes 1
    places = np.arange(rank + 1, dtype=np.int64)
    spread = n.op("LogicalOr", [n.op("Equal", [places, axis]),
                                n.op("Equal", [places, n.op("Add", [axis, one])])])
    shape = n.op("Select", [spread, size, one])
    taken = n.op("Reshape", [taken, shape], special_zero=False)
    # x with a 1 inserted at axis (Reshape keeps the rank static for OpenVINO)
    x_shape = n.op("ShapeOf", [x], output_type=_I64)
    source = n.op("Select", [n.op("Less", [places, axis]), places, n.op("Select", [
        n.op("Equal", [places, axis]), np.array(rank, np.int64), places - 1])])
    lifted = n.op("Gather", [n.op("Concat", [x_shape, np.array([1], np.int64)], axis=0),
                             source, np.array(0, np.int64)])
    factors = n.op("Select", [taken, n.op("Reshape", [x, lifted], special_zero=False),
                              n.op("ConvertLike", [n.const(1), x])])
    product = n.op("ReduceProd", [factors, n.op("Add", [axis, one])], keep_dims=True)
    return [n.op("Reshape", [product, x_shape], special_zero=False)]


@onnx_op("Einsum")
def einsum(n: OnnxNode):
    inputs = [n.input(i) for i in range(n.num_inputs)]
    return [n.op("Einsum", inputs, equation=n.attr("equation").replace(" ", ""))]


@onnx_op("NonMaxSuppression")
def non_max_suppression(n: OnnxNode):
    defaults = [np.int64(0), np.float32(0), np.float32(-np.inf)]
    inputs = [n.input(0), n.input(1)] + [
        n.input(i) if n.has_input(i) else n.const(d) for i, d in zip((2, 3, 4), defaults)
    ]
    node = n.op_node(
        "NonMaxSuppression", inputs,
        box_encoding="center" if n.attr("center_point_box", 0) else "corner",
        sort_result_descending=False, output_type=_I64, out_ports_count=3,
    )
    return [node.out_port(0)]


def _dft_axes(n: OnnxNode, x: Port) -> Port:
    """The ONNX DFT axis as an opset axes input (ONNX counts the [re, im] dim, negatives too)."""
    if n.opset < 20:
        axis = n.attr("axis", 1)
    elif n.has_input(2) and n.const_value(2) is None:
        return n.op("FloorMod", [n.input(2), _rank(n, x)])
    else:
        axis = int(n.const_value(2)) if n.has_input(2) else -2
    return n.const(np.array([axis + 1 if axis < 0 else axis], dtype=np.int64))


@onnx_op("DFT")
def dft(n: OnnxNode):
    """DFT/IDFT for complex input, RDFT/IRDFT for one-sided forms (real data lose the [1] dim)."""
    x, inverse, onesided = n.input(0), n.attr("inverse", 0), n.attr("onesided", 0)
    axes = _dft_axes(n, x)
    shape, dtype = _source_info(x)
    real = shape is not None and len(shape) > 0 and shape[-1] == 1
    size = [] if not n.has_input(1) else [n.op("Unsqueeze", [n.input(1), np.int64(0)])]
    last = np.array([-1], dtype=np.int64)
    if onesided and inverse:
        return [n.op("Unsqueeze", [n.op("IRDFT", [x, axes, *size]), last])]
    if onesided:
        return [n.op("RDFT", [n.op("Squeeze", [x, last]), axes, *size])]
    if real:
        zeros = n.op("Multiply", [x, np.zeros((), dtype=dtype)])
        x = n.op("Concat", [x, zeros], axis=-1)
    return [n.op("IDFT" if inverse else "DFT", [x, axes, *size])]


@onnx_op("GlobalAveragePool", "GlobalMaxPool")
def global_pool(n: OnnxNode):
    kind = "ReduceMean" if n.op_type == "GlobalAveragePool" else "ReduceMax"
    return [n.op(kind, [n.input(0), axes_from(n, 0, 2)], keep_dims=True,
                 mo_front=mo_front.global_pool(n.op_type, "max" if "Max" in n.op_type else "avg"))]
