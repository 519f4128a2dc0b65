"""MXNet translators for shape and data movement: Concat, Flatten, Reshape (with MXNet's special
values 0, -1, -2, -3, -4), transpose, slice_axis/slice/slice_like, expand_dims/squeeze,
SliceChannel, Pad, and the reductions (sum, mean, max, min, prod)."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.mxnet.translator import MxnetNode, mxnet_op
from converter.graph.port import Port

_INT_MAX = np.iinfo(np.int64).max
_REDUCE = {"sum": "ReduceSum", "sum_axis": "ReduceSum", "nansum": "ReduceSum",
           "mean": "ReduceMean", "max": "ReduceMax", "max_axis": "ReduceMax", "min": "ReduceMin",
           "min_axis": "ReduceMin", "prod": "ReduceProd"}
_PAD_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect"}


def _shape_of(n: MxnetNode, x: Port) -> Port:
    return n.op("ShapeOf", [x], output_type=np.dtype(np.int64))


def _all_axes(n: MxnetNode, x: Port, reverse: bool = False) -> Port:
    """[0, rank) of x (or reversed), built from its shape at run time."""
    rank = n.op("Squeeze", [n.op("ShapeOf", [_shape_of(n, x)], output_type=np.dtype(np.int64)),
                            n.const([0], np.int64)])
    if reverse:
        start = n.op("Subtract", [rank, n.const(1, np.int64)])
        return n.op("Range", [start, n.const(-1, np.int64), n.const(-1, np.int64)],
                    output_type=np.dtype(np.int64))
    return n.op("Range", [n.const(0, np.int64), rank, n.const(1, np.int64)],
                output_type=np.dtype(np.int64))


@mxnet_op("Concat", "concat")
def concat(n: MxnetNode):
    return [n.op("Concat", [n.input(i) for i in range(n.num_inputs)], axis=n.attrs.int("dim", 1))]


@mxnet_op("Flatten", "flatten")
def flatten(n: MxnetNode):
    y = n.op("Reshape", [n.input(0), n.const([0, -1], np.int64)], special_zero=True)
    y.node[mo_front.MO_FRONT] = mo_front.extracted("Flatten", None, 1, axis=1, end_axis=-1)
    return [y]


# -- Reshape ------------------------------------------------------------------------------------
def _dims(n: MxnetNode, shape: Port, idx: list[int]) -> Port:
    return n.op("Gather", [shape, n.const(idx, np.int64), n.const(0, np.int64)], batch_dims=0)


def _target_shape(n: MxnetNode, x: Port, spec: list[int], reverse: bool) -> Port:
    """The output shape MXNet's rules give, assembled from x's shape at run time."""
    shape = _shape_of(n, x)
    pieces: list[Port] = []
    src, i = 0, 0
    if reverse:
        if any(d < -1 for d in spec):
            n.reject("reverse=True with -2, -3 or -4 is not supported")
        # 0 copies the input dimension at the same place counted from the end
        count = len(spec)
        pieces = [_dims(n, shape, [-(count - j)]) if d == 0 else n.const([d], np.int64)
                  for j, d in enumerate(spec)]
        return n.op("Concat", pieces, axis=0)
    while i < len(spec):
        d = spec[i]
        if d > 0 or d == -1:
            pieces.append(n.const([d], np.int64))
            src += 1
        elif d == 0:
            pieces.append(_dims(n, shape, [src]))
            src += 1
        elif d == -2:  # every remaining input dimension
            bounds = [n.const([src], np.int64), n.const([_INT_MAX], np.int64)]
            pieces.append(n.op("Slice", [shape, *bounds, n.const([1], np.int64),
                                         n.const([0], np.int64)]))
        elif d == -3:  # two input dimensions merged
            pair = _dims(n, shape, [src, src + 1])
            pieces.append(n.op("ReduceProd", [pair, n.const([0], np.int64)], keep_dims=True))
            src += 2
        elif d == -4:  # one input dimension split in two (one of them may be -1)
            if i + 2 >= len(spec):
                n.reject(f"-4 needs two dimensions after it in shape {tuple(spec)}")
            d1, d2 = spec[i + 1], spec[i + 2]
            dim = _dims(n, shape, [src])
            if d1 == -1:
                pieces += [n.op("Divide", [dim, n.const([d2], np.int64)]), n.const([d2], np.int64)]
            elif d2 == -1:
                pieces += [n.const([d1], np.int64), n.op("Divide", [dim, n.const([d1], np.int64)])]
            else:
                pieces.append(n.const([d1, d2], np.int64))
            src += 1
            i += 2
        else:
            n.reject(f"shape value {d} is not one of MXNet's special values")
        i += 1
    return n.op("Concat", pieces, axis=0)


@mxnet_op("Reshape", "reshape")
def reshape(n: MxnetNode):
    spec = n.attrs.tuple("shape", int, None)
    if spec is None:
        spec = n.attrs.tuple("target_shape", int, None)
        if spec is None:
            n.reject("the 'shape' attribute is missing")
        spec = tuple(-1 if d == 0 else d for d in spec)  # the old target_shape: 0 means infer
    spec = list(spec)
    reverse = n.attrs.bool("reverse", False)
    if all(d >= -1 for d in spec) and not (reverse and 0 in spec):
        # 0 and -1 mean what OpenVINO's special_zero means
        return [n.op("Reshape", [n.input(0), n.const(spec, np.int64)], special_zero=True)]
    target = _target_shape(n, n.input(0), spec, reverse)
    return [n.op("Reshape", [n.input(0), target], special_zero=False)]


# -- axes ---------------------------------------------------------------------------------------
@mxnet_op("transpose")
def transpose(n: MxnetNode):
    axes = n.attrs.tuple("axes", int, ())
    order = n.const(list(axes), np.int64) if axes else _all_axes(n, n.input(0), reverse=True)
    return [n.op("Transpose", [n.input(0), order])]


@mxnet_op("_np_roll")
def roll(n: MxnetNode):
    """numpy.roll: along `axis`, or over the flattened input without one (as MO did)."""
    shift, axes, x = n.attrs.tuple("shift", int, ()), n.attrs.tuple("axis", int, ()), n.input(0)
    if not shift:
        n.reject("the 'shift' attribute is missing")
    if axes:
        return [n.op("Roll", [x, n.const(list(shift), np.int64), n.const(list(axes), np.int64)])]
    flat = n.op("Reshape", [x, n.const([-1], np.int64)], special_zero=False)
    rolled = n.op("Roll", [flat, n.const(list(shift), np.int64), n.const([0], np.int64)])
    return [n.op("Reshape", [rolled, _shape_of(n, x)], special_zero=False)]


@mxnet_op("SwapAxis", "swapaxes")
def swap_axes(n: MxnetNode):
    a, b = n.attrs.int("dim1", 0), n.attrs.int("dim2", 0)
    order = _all_axes(n, n.input(0))
    indices = n.const([[a], [b]], np.int64)
    swapped = n.op("ScatterNDUpdate", [order, indices, n.const([b, a], np.int64)])
    return [n.op("Transpose", [n.input(0), swapped])]


@mxnet_op("expand_dims")
def expand_dims(n: MxnetNode):
    return [n.op("Unsqueeze", [n.input(0), n.const([n.attrs.int("axis", 0)], np.int64)])]


@mxnet_op("squeeze")
def squeeze(n: MxnetNode):
    axes = n.attrs.tuple("axis", int, ())
    if not axes:
        return [n.op("Squeeze", [n.input(0)])]
    return [n.op("Squeeze", [n.input(0), n.const(list(axes), np.int64)])]


# -- slicing ------------------------------------------------------------------------------------
def _strided_slice(n: MxnetNode, begin: list, end: list, step: list, **masks) -> Port:
    """x[begin:end:step] on the leading axes, a bound of None open: MO's StridedSlice (its
    IR of every MXNet slice)."""
    inputs = [n.input(0)] + [n.const([0 if v is None else v for v in values], np.int64)
                             for values in (begin, end)] + [n.const(step, np.int64)]
    return n.op("StridedSlice", inputs, begin_mask=[int(b is None) for b in begin],
                end_mask=[int(e is None) for e in end], **masks)


@mxnet_op("slice_axis")
def slice_axis(n: MxnetNode):
    """x[:, ..., begin:end] on one axis; a negative one counts from the end (after an
    ellipsis)."""
    axis, bounds = n.attrs.int("axis", 0), (n.attrs.int("begin", 0), n.attrs.int("end", None))
    if axis >= 0:
        begin, end = [None] * axis + [bounds[0]], [None] * axis + [bounds[1]]
        return [_strided_slice(n, begin, end, [1] * (axis + 1))]
    after = [None] * (-axis - 1)
    begin, end = [None, bounds[0], *after], [None, bounds[1], *after]
    return [_strided_slice(n, begin, end, [1] * len(begin),
                           ellipsis_mask=[1] + [0] * (len(begin) - 1))]


@mxnet_op("slice_like")
def slice_like(n: MxnetNode):
    """x cut to the shape of the second input on `axes` (every axis when empty), from 0."""
    axes = list(n.attrs.tuple("axes", int, ()))
    like = _shape_of(n, n.input(1))
    if axes:
        stop = n.op("Gather", [like, n.const(axes, np.int64), n.const(0, np.int64)],
                    batch_dims=0)
        start, step = (n.const([v] * len(axes), np.int64) for v in (0, 1))
        axes_port = n.const(axes, np.int64)
    else:
        stop, axes_port = like, _all_axes(n, n.input(1))
        start = n.op("Multiply", [like, n.const(0, np.int64)])
        step = n.op("Add", [start, n.const(1, np.int64)])
    return [n.op("Slice", [n.input(0), start, stop, step, axes_port])]


@mxnet_op("slice", "crop")
def slice_(n: MxnetNode):
    begin = list(n.attrs.tuple("begin", int, ()))
    end = list(n.attrs.tuple("end", int, ()))
    step = list(n.attrs.tuple("step", int, ())) or [1] * len(begin)
    if len(end) != len(begin) or len(step) != len(begin):
        n.reject("begin, end and step must have the same length")
    return [_strided_slice(n, begin, end, [1 if s is None else s for s in step])]


@mxnet_op("SliceChannel", "split")
def slice_channel(n: MxnetNode):
    count = n.attrs.int("num_outputs", 1)
    axis = n.attrs.int("axis", 1)
    node = n.op_node("Split", [n.input(0), n.const(axis, np.int64)], num_splits=count)
    outs = [node.out_port(i) for i in range(count)]
    if n.attrs.bool("squeeze_axis", False):
        outs = [n.op("Squeeze", [o, n.const([axis], np.int64)]) for o in outs]
    return outs


@mxnet_op("Pad", "pad")
def pad(n: MxnetNode):
    width = list(n.attrs.tuple("pad_width", int, ()))
    mode = n.attrs.str("mode", "constant")
    if mode not in _PAD_MODES or not width or len(width) % 2:
        n.reject(f"mode {mode} with pad_width {tuple(width)} is not supported")
    value = n.const(n.attrs.float("constant_value", 0.0), np.float32)
    inputs = [n.input(0), n.const(width[0::2], np.int64), n.const(width[1::2], np.int64), value]
    y = n.op("Pad", inputs, pad_mode=_PAD_MODES[mode])
    y.node[mo_front.MO_FRONT] = mo_front.attributed_pad(  # (MO's form, to legacy front passes)
        width[0::2] + width[1::2], n.attrs.str("mode", None),
        n.attrs.float("constant_value", 0.0))
    return [y]


# -- reductions ---------------------------------------------------------------------------------
@mxnet_op(*_REDUCE)
def reduce(n: MxnetNode):
    axes = n.attrs.tuple("axis", int, ())
    if n.attrs.bool("exclude", False):
        n.reject("exclude=True is not supported")
    target = n.const(list(axes), np.int64) if axes else _all_axes(n, n.input(0))
    keep = n.attrs.bool("keepdims", False)
    return [n.op(_REDUCE[n.op_type], [n.input(0), target], keep_dims=keep)]
