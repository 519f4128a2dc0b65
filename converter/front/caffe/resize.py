"""Caffe's Interp layer (DeepLab, PSPNet): a bilinear resize of H and W with aligned corners."""

from __future__ import annotations

import numpy as np

from converter.front.caffe.ops import _BIG, I64, _shape_part
from converter.front.caffe.translator import CaffeNode, caffe_op
from converter.graph.port import Port


def _factor(n: CaffeNode, name: str) -> int:
    value = int(n.attr(name))
    if value < 1:
        n.reject(f"{name} is {value}; give a factor of 1 or more")
    return value


def _shrunk(n: CaffeNode, hw: Port) -> Port:
    """(size - 1) / shrink_factor + 1, in integers."""
    less = n.op("Subtract", [hw, n.const(1, I64)])
    return n.op("Add", [n.op("Divide", [less, n.const(_factor(n, "shrink_factor"), I64)]),
                        n.const(1, I64)])


def _zoomed(n: CaffeNode, hw: Port) -> Port:
    """size + (size - 1) * (zoom_factor - 1): the input's pixels stay on the output grid."""
    gaps = n.op("Subtract", [hw, n.const(1, I64)])
    extra = n.op("Multiply", [gaps, n.const(_factor(n, "zoom_factor") - 1, I64)])
    return n.op("Add", [hw, extra])


def _out_size(n: CaffeNode, x: Port) -> Port:
    """The output [H, W] by the first rule that applies, in Caffe's order."""
    shrink, zoom = n.has_attr("shrink_factor"), n.has_attr("zoom_factor")
    if n.has_attr("height") and n.has_attr("width") and not (shrink ^ zoom):
        return n.const([int(n.attr("height")), int(n.attr("width"))], I64)
    if shrink or zoom:
        hw = _shape_part(n, n.op("ShapeOf", [x], output_type=np.dtype(I64)), 2, 4)
        if shrink:
            hw = _shrunk(n, hw)
        return _zoomed(n, hw) if zoom else hw
    if n.num_inputs > 1:
        return _shape_part(n, n.op("ShapeOf", [n.input(1)], output_type=np.dtype(I64)), 2, 4)
    n.reject("no output size: set height and width, zoom_factor or shrink_factor, or give a "
             "second bottom of the wanted size")


@caffe_op("Interp")
def interp(n: CaffeNode):
    """Bilinear resize of the spatial axes, corners aligned, after cutting -pad_beg rows and
    columns at the start and -pad_end at the end (Caffe allows no positive padding)."""
    pad_beg, pad_end = int(n.attr("pad_beg")), int(n.attr("pad_end"))
    if pad_beg > 0 or pad_end > 0:
        n.reject(f"pad_beg {pad_beg}, pad_end {pad_end}: Interp only crops",
                 "give values of 0 or less")
    x = n.input(0)
    if pad_beg or pad_end:
        x = n.op("Slice", [x, n.const([-pad_beg] * 2, I64), n.const([pad_end or _BIG] * 2, I64),
                           n.const([1, 1], I64), n.const([2, 3], I64)])
    return [n.op("Interpolate", [x, _out_size(n, x), n.const([2, 3], I64)], mode="linear_onnx",
                 shape_calculation_mode="sizes", coordinate_transformation_mode="align_corners")]
