"""TensorFlow translators for image resizing: ResizeBilinear and ResizeNearestNeighbor (NHWC, the
new height and width as input 1) as Interpolate-11 on the spatial axes."""

from __future__ import annotations

import numpy as np

from converter.front.tf.ops._layout import to_nchw, to_nhwc
from converter.front.tf.translator import TfNode, tf_op


def _coordinates(n: TfNode, nearest: bool) -> dict:
    """TF's align_corners / half_pixel_centers flags as the IR's coordinate and rounding modes."""
    if n.attr("align_corners", False):
        return {"coordinate_transformation_mode": "align_corners",
                "nearest_mode": "round_prefer_ceil"}
    if n.attr("half_pixel_centers", False):
        mode = "tf_half_pixel_for_nn" if nearest else "half_pixel"
        return {"coordinate_transformation_mode": mode, "nearest_mode": "floor"}
    return {"coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}


@tf_op("ResizeBilinear", "ResizeNearestNeighbor")
def resize(n: TfNode):
    nearest = n.op_type == "ResizeNearestNeighbor"
    attrs = {"mode": "nearest" if nearest else "linear_onnx", "shape_calculation_mode": "sizes",
             **_coordinates(n, nearest)}
    x = to_nchw(n, n.input(0), 4)
    y = n.op("Interpolate", [x, n.op("Convert", [n.input(1)], destination_type=np.dtype(np.int64)),
                             n.const([2, 3], np.int64)], **attrs)
    return [to_nhwc(n, y, 4)]
