"""TensorFlow's resize flags (align_corners, half_pixel_centers), which TFLite's resize ops
keep, as the IR Interpolate's coordinate transformation and nearest rounding modes."""

from __future__ import annotations

__all__ = ["tf_resize_modes"]


def tf_resize_modes(align_corners: bool, half_pixel_centers: bool, nearest: bool) -> dict:
    if align_corners:
        return {"coordinate_transformation_mode": "align_corners",
                "nearest_mode": "round_prefer_ceil"}
    if half_pixel_centers:
        mode = "tf_half_pixel_for_nn" if nearest else "half_pixel"
        return {"coordinate_transformation_mode": mode, "nearest_mode": "floor"}
    return {"coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
