"""ONNX Resize in the modes Interpolate lacks (tf_crop_and_resize, half_pixel_symmetric,
exclude_outside, keep_aspect_ratio_policy, antialias, align_corners from unrounded scales), as
one [out, in] weight matrix per resized axis, built at run time from the scales, sizes and roi
and applied with MatMul. Taps past either edge count as the edge sample, as ONNX pads them."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode
from converter.graph.port import Port

I64, F32 = np.int64, np.float32
_RADIUS = {"linear": 1.0, "cubic": 2.0}


def needs_matrices(n: OnnxNode, transform: str, sizes: bool) -> bool:
    """Whether node's Resize takes the matrix path rather than Interpolate."""
    return (transform in ("tf_crop_and_resize", "half_pixel_symmetric")
            or (transform == "align_corners" and not sizes) or bool(n.attr("exclude_outside", 0))
            or bool(n.attr("antialias", 0))
            or n.attr("keep_aspect_ratio_policy", "stretch") != "stretch")


class _Axis:
    """One resized axis: its input length, output length and scale, as f32 scalars (the
    output length also as an i64 scalar), and tf_crop_and_resize's roi start and end."""

    def __init__(self, n: OnnxNode, length: Port, out: Port, scale: Port,
                 roi: tuple[Port, Port] | None) -> None:
        self.length, self.scale, self.roi = length, scale, roi
        self.out_i = n.op("Convert", [out], destination_type=np.dtype(I64))
        self.out = n.op("Convert", [out], destination_type=np.dtype(F32))


def _f(n: OnnxNode, value: float) -> Port:
    return n.const(value, F32)


def _ops(n: OnnxNode, kind: str, *inputs: Port | float) -> Port:
    """A binary op over ports and f32 scalars."""
    return n.op(kind, [_f(n, v) if isinstance(v, float) else v for v in inputs])


def _coordinates(n: OnnxNode, ax: _Axis, transform: str) -> Port:
    """Each output index's coordinate in the input, [out] f32."""
    i = n.op("Range", [n.const(0.0, F32), ax.out, n.const(1.0, F32)], output_type=np.dtype(F32))
    centred = _ops(n, "Subtract", _ops(n, "Divide", _ops(n, "Add", i, 0.5), ax.scale), 0.5)
    if transform == "tf_crop_and_resize":
        start, end = ax.roi
        last = _ops(n, "Subtract", ax.length, 1.0)
        step = _ops(n, "Divide", _ops(n, "Multiply", _ops(n, "Subtract", end, start), last),
                    _ops(n, "Subtract", ax.out, 1.0))
        ramp = _ops(n, "Add", _ops(n, "Multiply", start, last), _ops(n, "Multiply", i, step))
        single = _ops(n, "Multiply", _ops(n, "Multiply", _ops(n, "Add", start, end), 0.5), last)
        return n.op("Select", [_ops(n, "Greater", ax.out, 1.0), ramp, single])
    if transform == "align_corners":
        resized = _ops(n, "Multiply", ax.scale, ax.length)  # unrounded, as ONNX has it
        ramp = _ops(n, "Divide", _ops(n, "Multiply", i, _ops(n, "Subtract", ax.length, 1.0)),
                    _ops(n, "Subtract", resized, 1.0))
        return n.op("Select", [_ops(n, "Equal", resized, 1.0), _f(n, 0.0), ramp])
    if transform == "asymmetric":
        return _ops(n, "Divide", i, ax.scale)
    if transform == "tf_half_pixel_for_nn":
        return _ops(n, "Divide", _ops(n, "Add", i, 0.5), ax.scale)
    if transform == "pytorch_half_pixel":
        return n.op("Select", [_ops(n, "Greater", ax.out, 1.0), centred, _f(n, 0.0)])
    if transform == "half_pixel_symmetric":
        adjust = _ops(n, "Divide", ax.out, _ops(n, "Multiply", ax.scale, ax.length))
        shift = _ops(n, "Multiply", _ops(n, "Multiply", ax.length, 0.5),
                     _ops(n, "Subtract", 1.0, adjust))
        return _ops(n, "Add", shift, centred)
    return centred


def _nearest(n: OnnxNode, x: Port) -> Port:
    mode = n.attr("nearest_mode", "round_prefer_floor")
    if mode == "floor":
        return n.op("Floor", [x])
    if mode == "ceil":
        return n.op("Ceiling", [x])
    if mode == "round_prefer_ceil":
        return n.op("Floor", [_ops(n, "Add", x, 0.5)])
    return n.op("Ceiling", [_ops(n, "Subtract", x, 0.5)])


def _kernel(n: OnnxNode, u: Port, mode: str) -> Port:
    """The tap weight at distance u >= 0 (linear or cubic with cubic_coeff_a)."""
    if mode == "linear":
        return n.op("Maximum", [_ops(n, "Subtract", 1.0, u), _f(n, 0.0)])
    a = float(n.attr("cubic_coeff_a", -0.75))
    u2 = _ops(n, "Multiply", u, u)
    u3 = _ops(n, "Multiply", u2, u)

    def poly(c3: float, c2: float, c1: float, c0: float) -> Port:
        terms = [_ops(n, "Multiply", u3, c3), _ops(n, "Multiply", u2, c2),
                 _ops(n, "Multiply", u, c1)]
        return _ops(n, "Add", _ops(n, "Add", terms[0], terms[1]), _ops(n, "Add", terms[2], c0))

    near, far = poly(a + 2, -(a + 3), 0.0, 1.0), poly(a, -5 * a, 8 * a, -4 * a)
    outer = n.op("Select", [_ops(n, "Less", u, 2.0), far, _f(n, 0.0)])
    return n.op("Select", [_ops(n, "LessEqual", u, 1.0), near, outer])


def _taps(n: OnnxNode, ax: _Axis, x: Port, mode: str) -> Port:
    """[out, in] weights: every tap within the kernel's reach, those past an edge added to
    the edge's sample (or dropped, then the rest renormalized, with exclude_outside)."""
    shrink = n.op("Minimum", [ax.scale, _f(n, 1.0)]) if n.attr("antialias", 0) else _f(n, 1.0)
    reach = n.op("Ceiling", [_ops(n, "Divide", _RADIUS[mode], shrink)])
    last = _ops(n, "Subtract", ax.length, 1.0)
    j = n.op("Range", [n.op("Negative", [reach]), _ops(n, "Add", ax.length, reach), _f(n, 1.0)],
             output_type=np.dtype(F32))
    offsets = n.op("Subtract", [n.op("Unsqueeze", [x, np.array(1, I64)]), j])
    weights = _kernel(n, n.op("Multiply", [n.op("Abs", [offsets]), shrink]), mode)
    if n.attr("exclude_outside", 0):
        inside = n.op("LogicalAnd", [_ops(n, "GreaterEqual", j, 0.0),
                                     _ops(n, "LessEqual", j, last)])
        weights = n.op("Select", [inside, weights, _f(n, 0.0)])
    if n.attr("exclude_outside", 0) or n.attr("antialias", 0):
        total = n.op("ReduceSum", [weights, np.array([1], I64)], keep_dims=True)
        weights = n.op("Divide", [weights, total])
    edge = n.op("Minimum", [n.op("Maximum", [j, _f(n, 0.0)]), last])
    return n.op("MatMul", [weights, _onehot(n, edge, ax)])


def _onehot(n: OnnxNode, index: Port, ax: _Axis) -> Port:
    """[len(index), in]: 1 where the column is the row's index."""
    cols = n.op("Range", [_f(n, 0.0), ax.length, _f(n, 1.0)], output_type=np.dtype(F32))
    hit = n.op("Equal", [n.op("Unsqueeze", [index, np.array(1, I64)]), cols])
    return n.op("Convert", [hit], destination_type=np.dtype(F32))


def _matrix(n: OnnxNode, ax: _Axis, mode: str, transform: str) -> tuple[Port, Port | None]:
    """The axis's [out, in] weights and, for tf_crop_and_resize, which outputs lie outside."""
    x = _coordinates(n, ax, transform)
    if mode == "nearest":
        index = n.op("Clamp", [_nearest(n, x)], min=0.0, max=float(2**62))
        weights = _onehot(n, n.op("Minimum", [index, _ops(n, "Subtract", ax.length, 1.0)]), ax)
    else:
        weights = _taps(n, ax, x, mode)
    outside = None
    if transform == "tf_crop_and_resize":
        last = _ops(n, "Subtract", ax.length, 1.0)
        outside = n.op("LogicalOr", [_ops(n, "Less", x, 0.0), _ops(n, "Greater", x, last)])
    return weights, outside


def _along(n: OnnxNode, y: Port, weights: Port, axis: int, rank: int) -> Port:
    """y with its axis multiplied by weights [out, in]."""
    perm = np.array([i for i in range(rank) if i != axis] + [axis], I64)
    moved = n.op("MatMul", [n.op("Transpose", [y, perm]), weights], transpose_b=True)
    return n.op("Transpose", [moved, np.argsort(perm).astype(I64)])


def _scales_and_sizes(n: OnnxNode, lengths: Port, count: int) -> tuple[Port, Port]:
    """Per resized axis [count] f32: the scale and the output length."""
    if not n.has_input(3):
        scales = n.op("Convert", [n.input(2)], destination_type=np.dtype(F32))
        return scales, n.op("Floor", [n.op("Multiply", [scales, lengths])])
    sizes = n.op("Convert", [n.input(3)], destination_type=np.dtype(F32))
    ratios = n.op("Divide", [sizes, lengths])
    policy = n.attr("keep_aspect_ratio_policy", "stretch")
    if policy == "stretch":
        return ratios, sizes
    pick = "ReduceMin" if policy == "not_larger" else "ReduceMax"
    scale = n.op(pick, [ratios, np.array([0], I64)], keep_dims=True)
    scales = n.op("Broadcast", [scale, np.array([count], I64)])
    return scales, n.op("Round", [n.op("Multiply", [scales, lengths])], mode="half_to_even")


def _unit_axes(n: OnnxNode, transform: str) -> set[int]:
    """The positions in axes of constant scales of 1, which every mode but tf_crop_and_resize
    leaves as they are."""
    scales = None if n.has_input(3) else n.const_value(2)
    if scales is None or transform == "tf_crop_and_resize":
        return set()
    return {j for j, s in enumerate(np.ravel(scales)) if s == 1.0}


def resample(n: OnnxNode, mode: str, transform: str) -> Port:
    """Resize through one weight matrix per axis in axes (all by default)."""
    x, rank = n.input(0), n.static_rank(0)
    if rank is None:
        n.reject("cannot tell the input's rank", "give the model's inputs a shape")
    axes = [int(a) % rank for a in n.attr("axes", range(rank))]
    shape = n.op("ShapeOf", [x], output_type=np.dtype(I64))
    lengths = n.op("Convert", [n.op("Gather", [shape, np.array(axes, I64), np.array(0, I64)])],
                   destination_type=np.dtype(F32))
    scales, sizes = _scales_and_sizes(n, lengths, len(axes))
    roi = None
    if transform == "tf_crop_and_resize":
        roi = n.op("Convert", [n.input(1)], destination_type=np.dtype(F32))
    y, outside = n.op("Convert", [x], destination_type=np.dtype(F32)), None
    for j, axis in enumerate(axes):
        if j in _unit_axes(n, transform):
            continue
        def pick(v: Port, at: int = j) -> Port:
            return n.op("Gather", [v, np.array(at, I64), np.array(0, I64)])

        bounds = None if roi is None else (pick(roi), pick(roi, j + len(axes)))
        ax = _Axis(n, pick(lengths), pick(sizes), pick(scales), bounds)
        weights, off = _matrix(n, ax, mode, transform)
        y = _along(n, y, weights, axis, rank)
        if off is not None:
            spread = np.where(np.arange(rank) == axis, -1, 1).astype(I64)
            off = n.op("Reshape", [off, spread], special_zero=False)
            outside = off if outside is None else n.op("LogicalOr", [outside, off])
    if outside is not None:
        fill = _f(n, float(n.attr("extrapolation_value", 0.0)))
        y = n.op("Select", [outside, fill, y])
    return n.op("ConvertLike", [y, x])
