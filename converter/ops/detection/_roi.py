"""Shared by the ROI ops: their output is [rois, channels, pooled_h, pooled_w]."""

from __future__ import annotations


def roi_output_shape(attrs: dict, shapes: list) -> tuple[int, int, int, int]:
    channels = shapes[0][1] if shapes[0] is not None else -1
    rois = shapes[1][0] if shapes[1] is not None else -1
    return (rois, channels, attrs["pooled_h"], attrs["pooled_w"])
