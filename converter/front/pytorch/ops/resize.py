"""ATen upsampling (F.interpolate) as Interpolate-11 over the spatial axes: to the given sizes,
or by the given scales (torch then maps coordinates by the scale, as Interpolate's scales
mode does)."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.ops._common import dims_slice
from converter.front.pytorch.translator import TorchNode, aten_op

# op -> (Interpolate mode, spatial axes)
_KINDS = {
    "aten::upsample_nearest1d": ("nearest", 1), "aten::upsample_nearest2d": ("nearest", 2),
    "aten::upsample_nearest3d": ("nearest", 3), "aten::upsample_linear1d": ("linear_onnx", 1),
    "aten::upsample_bilinear2d": ("linear_onnx", 2),
    "aten::upsample_trilinear3d": ("linear_onnx", 3), "aten::upsample_bicubic2d": ("cubic", 2),
}


@aten_op(*_KINDS)
def upsample(n: TorchNode):
    mode, count = _KINDS[n.op_type]
    sizes = n.arg("output_size")
    scales = n.arg("scale_factors")
    if scales is None and not sizes:  # the .default overloads: scales_h, scales_w, ...
        scales = [n.arg(k) for k in ("scales_d", "scales_h", "scales_w", "scales")
                  if n.arg(k) is not None][-count:] or None
    x = n.tensor(0)
    corners = mode != "nearest" and bool(n.value("align_corners", False))
    if sizes:
        target, calculation = n.ints("output_size"), "sizes"
    elif scales is not None:
        per_axis = n.const(np.array(list(scales) * (count if len(scales) == 1 else 1),
                                    np.float32))
        target, calculation = per_axis, "scales"
        if corners:  # torch maps corners by the sizes the scales give, not by the scales
            spatial = n.op("Convert", [dims_slice(n, x, 2, None)],
                           destination_type=np.dtype(np.float32))
            target = n.op("Convert", [n.op("Floor", [n.op("Multiply", [spatial, per_axis])])],
                          destination_type=np.dtype(np.int64))
            calculation = "sizes"
    else:
        n.reject("neither output_size nor scale_factors is given", "change the model")
    if mode == "nearest":
        attrs = {"coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    elif corners:
        attrs = {"coordinate_transformation_mode": "align_corners"}
    else:
        attrs = {"coordinate_transformation_mode": "pytorch_half_pixel"}
    axes = n.const(np.arange(2, 2 + count, dtype=np.int64))
    return [n.op("Interpolate", [x, target, axes], mode=mode,
                 shape_calculation_mode=calculation, **attrs)]
