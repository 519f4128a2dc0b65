"""ONNX translators for ops that sample a feature map at computed points or regions: RoiAlign,
MaxRoiPool, GridSample, DeformConv."""

from __future__ import annotations

import logging

from converter.front.onnx.ops.nn import _channel_bias, _spatial_rank, _window_attrs
from converter.front.onnx.ops.volume_sampling import sample_volume
from converter.front.onnx.translator import OnnxNode, onnx_op

log = logging.getLogger("extgen.convert")


@onnx_op("RoiAlign")
def roi_align(n: OnnxNode):
    """ROIAlign-9; ONNX's half_pixel is its half_pixel_for_nn. OpenVINO's 'max' takes the
    largest interpolated sample of a bin, onnxruntime's the largest weighted corner."""
    half = n.opset >= 16 and n.attr("coordinate_transformation_mode", "half_pixel") == "half_pixel"
    mode = n.attr("mode", "avg")
    if mode == "max":
        log.warning("RoiAlign node '%s': mode 'max' pools as OpenVINO's ROIAlign does (the "
                    "largest interpolated sample), not as onnxruntime (the largest weighted "
                    "corner)", n.name)
    return [n.op("ROIAlign", [n.input(0), n.input(1), n.input(2)],
                 pooled_h=n.attr("output_height", 1), pooled_w=n.attr("output_width", 1),
                 sampling_ratio=n.attr("sampling_ratio", 0),
                 spatial_scale=float(n.attr("spatial_scale", 1.0)), mode=mode,
                 aligned_mode="half_pixel_for_nn" if half else "asymmetric")]


@onnx_op("GridSample")
def grid_sample(n: OnnxNode):
    mode = {"linear": "bilinear", "cubic": "bicubic"}.get(n.attr("mode", "bilinear"),
                                                         n.attr("mode", "bilinear"))
    if n.static_rank(0) == 5:
        return [sample_volume(n, mode)]
    if n.static_rank(0) not in (None, 4):
        n.reject(f"samples {n.static_rank(0)}-D data; GridSample takes 4-D or 5-D",
                 "sample [N, C, H, W] or [N, C, D, H, W] data")
    return [n.op("GridSample", [n.input(0), n.input(1)], mode=mode,
                 align_corners=bool(n.attr("align_corners", 0)),
                 padding_mode=n.attr("padding_mode", "zeros"))]


@onnx_op("DeformConv")
def deform_conv(n: OnnxNode):
    nsp = _spatial_rank(n, 1)
    if nsp != 2:
        n.reject(f"has {nsp} spatial axes; OpenVINO's DeformableConvolution has 2")
    inputs = [n.input(0), n.input(2), n.input(1)] + ([n.input(4)] if n.has_input(4) else [])
    y = n.op("DeformableConvolution", inputs, **_window_attrs(n, nsp),
             dilations=list(n.attr("dilations", [1] * nsp)), group=n.attr("group", 1),
             deformable_group=n.attr("offset_group", 1), bilinear_interpolation_pad=True)
    return [_channel_bias(n, y, 3, nsp)]


@onnx_op("MaxRoiPool")
def max_roi_pool(n: OnnxNode):
    pooled_h, pooled_w = n.attr("pooled_shape")
    return [n.op("ROIPooling", [n.input(0), n.input(1)], pooled_h=pooled_h, pooled_w=pooled_w,
                 spatial_scale=float(n.attr("spatial_scale", 1.0)), method="max")]
