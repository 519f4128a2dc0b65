"""TensorFlow translators for image ops: ResizeBilinear and ResizeNearestNeighbor (NHWC, the new
height and width as input 1) as Interpolate-11 on axes 1 and 2;
ExtractImagePatches; CropAndResize as gathers of each box's sample rows and columns,
interpolated and masked outside the image."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.resize_modes import tf_resize_modes
from converter.front.tf.attrs import convert_tf_padding_to_str
from converter.front.tf.ops._layout import to_nchw, to_nhwc
from converter.front.tf.translator import TfNode, tf_op
from converter.graph.port import Port


def _coordinates(n: TfNode, nearest: bool) -> dict:
    return tf_resize_modes(n.attr("align_corners", False), n.attr("half_pixel_centers", False),
                           nearest)


# ResizeBicubic is in bicubic.py: TF weighs its taps from a table (1e-3 off Interpolate's cubic)
_MODES = {"ResizeBilinear": "linear_onnx", "ResizeNearestNeighbor": "nearest"}


@tf_op(*_MODES)
def resize(n: TfNode):
    nearest = n.op_type == "ResizeNearestNeighbor"
    attrs = {"mode": _MODES[n.op_type], "shape_calculation_mode": "sizes",
             **_coordinates(n, nearest)}
    # on the NHWC axes, as ovc writes it; the layout change moves them with the data
    sizes = n.op("Convert", [n.input(1)], destination_type=np.dtype(np.int64))
    mo = mo_front.tf_resize("nearest" if nearest else "linear", n.attr("align_corners", False),
                            n.attr("half_pixel_centers", False))
    return [n.op("Interpolate", [n.input(0), sizes, n.const([1, 2], np.int64)], **attrs,
                 mo_front=mo)]


@tf_op("ExtractImagePatches")
def extract_image_patches(n: TfNode):
    def spatial(name: str) -> list[int]:
        return list(n.attr(name))[1:3]

    attrs = {"sizes": spatial("ksizes"), "strides": spatial("strides"),
             "rates": spatial("rates"),
             "auto_pad": convert_tf_padding_to_str(n.attr("padding", "VALID"))}
    y = n.op("ExtractImagePatches", [to_nchw(n, n.input(0), 4)], **attrs)
    return [to_nhwc(n, y, 4)]


def _axis_coordinates(n: TfNode, boxes: Port, image_shape: Port, axis: int, count: int):
    """Sample positions of a crop along image axis 1 (y) or 2 (x): [N, count] float, and the
    axis' last index (a scalar). TF places `count` samples from the box's start to its end (one
    sample: its middle), in units of the image's last index."""
    f32 = np.dtype(np.float32)
    last = n.op("Subtract", [n.op("Convert", [n.op("Gather", [
        image_shape, n.const(axis, np.int64), n.const(0, np.int64)], batch_dims=0)],
        destination_type=f32), n.const(1.0, f32)])
    start, end = (n.op("Gather", [boxes, n.const([axis - 1 + k], np.int64), n.const(1, np.int64)],
                       batch_dims=0) for k in (0, 2))
    frac = np.arange(count) / (count - 1) if count > 1 else np.array([0.5])
    span = n.op("Multiply", [n.op("Subtract", [end, start]), n.const(frac, f32)])
    return n.op("Multiply", [n.op("Add", [start, span]), last]), last


def _indices(n: TfNode, position: Port, last: Port, rounding: str) -> Port:
    """position rounded ('Floor', 'Ceiling' or 'Round'), clamped into the axis, as int64."""
    rounded = n.op(rounding, [position], **({"mode": "half_away_from_zero"}
                                           if rounding == "Round" else {}))
    inside = n.op("Maximum", [n.op("Minimum", [rounded, last]), n.const(0.0, np.float32)])
    return n.op("Convert", [inside], destination_type=np.dtype(np.int64))


def _inside(n: TfNode, position: Port, last: Port) -> Port:
    return n.op("LogicalAnd", [n.op("GreaterEqual", [position, n.const(0.0, np.float32)]),
                               n.op("LessEqual", [position, last])])


def _pick(n: TfNode, image: Port, batch: Port, ys: Port, xs: Port) -> Port:
    """image [B, H, W, C] at, for box i, image batch[i], rows ys[i] and columns xs[i]:
    [N, h, w, C], gathered at once (no per-box copy of the image)."""
    i64 = np.dtype(np.int64)
    grid = n.op("Concat", [n.op("ShapeOf", [ys], output_type=i64), n.op("Gather", [
        n.op("ShapeOf", [xs], output_type=i64), n.const([1], np.int64), n.const(0, np.int64)],
        batch_dims=0)], axis=0)
    parts = [(batch, [1, 2]), (ys, [2]), (xs, [1])]
    index = [_expand(n, n.op("Broadcast", [_expand(n, p, axes), grid], mode="numpy"), [3])
             for p, axes in parts]
    return n.op("GatherND", [image, n.op("Concat", index, axis=-1)], batch_dims=0)


def _lerp(n: TfNode, a: Port, b: Port, weight: Port) -> Port:
    return n.op("Add", [a, n.op("Multiply", [n.op("Subtract", [b, a]), weight])])


def _expand(n: TfNode, x: Port, axes: list[int]) -> Port:
    return n.op("Unsqueeze", [x, n.const(axes, np.int64)])


@tf_op("CropAndResize")
def crop_and_resize(n: TfNode):
    size = n.const_value(3)
    if size is None:
        n.reject("crop_size (input 3) must be a constant", "make it a constant in the graph")
    height, width = (int(v) for v in np.asarray(size).reshape(-1))
    image = n.op("Convert", [n.input(0)], destination_type=np.dtype(np.float32))
    shape = n.op("ShapeOf", [image], output_type=np.dtype(np.int64))
    boxes = n.op("Convert", [n.input(1)], destination_type=np.dtype(np.float32))
    batch = n.op("Convert", [n.input(2)], destination_type=np.dtype(np.int64))
    y, y_last = _axis_coordinates(n, boxes, shape, 1, height)
    x, x_last = _axis_coordinates(n, boxes, shape, 2, width)
    def pick(ys: Port, xs: Port) -> Port:
        return _pick(n, image, batch, ys, xs)

    if n.attr("method", "bilinear") == "nearest":
        out = pick(_indices(n, y, y_last, "Round"), _indices(n, x, x_last, "Round"))
    else:
        top, bottom = (_indices(n, y, y_last, r) for r in ("Floor", "Ceiling"))
        left, right = (_indices(n, x, x_last, r) for r in ("Floor", "Ceiling"))
        wy = _expand(n, n.op("Subtract", [y, n.op("Floor", [y])]), [2, 3])
        wx = _expand(n, n.op("Subtract", [x, n.op("Floor", [x])]), [1, 3])
        upper = _lerp(n, pick(top, left), pick(top, right), wx)
        lower = _lerp(n, pick(bottom, left), pick(bottom, right), wx)
        out = _lerp(n, upper, lower, wy)
    inside = n.op("LogicalAnd", [_expand(n, _inside(n, y, y_last), [2, 3]),
                                 _expand(n, _inside(n, x, x_last), [1, 3])])
    fill = n.const(float(n.attr("extrapolation_value", 0.0)), np.float32)
    return [n.op("Select", [inside, out, fill], auto_broadcast="numpy")]
