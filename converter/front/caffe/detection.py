"""Caffe translators for detection and recognition heads: SSD's PriorBox and DetectionOutput,
PriorBoxClustered, YOLO's RegionYolo and ReorgYolo, ROIPooling, R-FCN's PSROIPooling, Faster
R-CNN's proposal layers (C++ and Python) and CTCGreedyDecoder."""

from __future__ import annotations

import numpy as np

from converter.front.caffe.extractor import CaffePythonFrontExtractorOp
from converter.front.caffe.ops import I64, _enum, _shape_part
from converter.front.caffe.translator import CaffeNode, caffe_op
from converter.graph.port import Port


def _floats(n: CaffeNode, name: str) -> list[float]:
    return [float(v) for v in n.attr(name, [])]


def _hw(n: CaffeNode, x: Port) -> Port:
    """[H, W] of an NCHW blob."""
    return _shape_part(n, n.op("ShapeOf", [x], output_type=np.dtype(I64)), 2, 4)


def _image(n: CaffeNode) -> Port:
    """[H, W] of the image: img_h and img_w, img_size, or the second bottom's."""
    if n.has_attr("img_h") or n.has_attr("img_w"):
        img_h, img_w = int(n.attr("img_h", 0)), int(n.attr("img_w", 0))
        if img_h <= 0 or img_w <= 0:
            n.reject("img_h and img_w are given together, both positive")
        return n.const([img_h, img_w], I64)
    if n.has_attr("img_size"):
        return n.const([int(n.attr("img_size"))] * 2, I64)
    if n.num_inputs > 1:
        return _hw(n, n.input(1))
    n.reject("needs the image as its second bottom, or img_size / img_h and img_w")


def _variance(n: CaffeNode) -> list[float]:
    variance = _floats(n, "variance")
    if len(variance) not in (0, 1, 4):
        n.reject(f"{len(variance)} variance values (give 1 or 4)")
    return variance


@caffe_op("PriorBox")
def prior_box(n: CaffeNode):
    """SSD's PriorBox over the feature map (bottom 0) of the image (bottom 1, or img_size /
    img_h, img_w): PriorBox-8 with Caffe's box order, [2, L] made Caffe's [1, 2, L]."""
    min_size, max_size = _floats(n, "min_size"), _floats(n, "max_size")
    fixed_size = _floats(n, "fixed_size")  # fields of Model Optimizer's caffe.proto, when in use
    if not min_size and not fixed_size:
        n.reject("min_size is not given")
    if max_size and len(max_size) != len(min_size):
        n.reject(f"{len(max_size)} max_size values for {len(min_size)} min_size values")
    if n.has_attr("step_h") or n.has_attr("step_w"):
        step_h, step_w = float(n.attr("step_h", 0.0)), float(n.attr("step_w", 0.0))
        if step_h != step_w:
            n.reject(f"step_h {step_h:g} and step_w {step_w:g} differ; PriorBox takes one "
                     "step")
        step = step_h
    else:
        step = float(n.attr("step")) if n.has_attr("step") else 0.0
    offset = float(n.attr("offset"))
    if step == 0 and abs(offset - 0.5) > 1e-6:
        n.reject(f"offset {offset:g} needs an explicit step (PriorBox centres the cells "
                 "when the step is derived from the image)")
    image = _image(n)
    variance = _variance(n)
    boxes = n.op("PriorBox", [_hw(n, n.input(0)), image], min_size=min_size, max_size=max_size,
                 aspect_ratio=_floats(n, "aspect_ratio"), flip=bool(n.attr("flip")),
                 clip=bool(n.attr("clip")), step=step, offset=offset, variance=variance,
                 scale_all_sizes=bool(n.attr("scale_all_sizes", True)),
                 fixed_size=fixed_size, fixed_ratio=_floats(n, "fixed_ratio"),
                 density=_floats(n, "density"), min_max_aspect_ratios_order=True)
    return [n.op("Unsqueeze", [boxes, n.const([0], I64)])]


@caffe_op("DetectionOutput")
def detection_output(n: CaffeNode):
    """SSD's DetectionOutput: loc [N, P*4], conf [N, P*C] (after the softmax) and the priors
    [1, 2, P*4] (5 bottoms: RefineDet's ARM conf and loc too) onto DetectionOutput-8."""
    nms = n.param.nms_param
    eta = float(nms.eta) if nms.HasField("eta") else 1.0
    if eta != 1.0:
        n.reject(f"adaptive NMS (eta {eta:g}) is not supported; eta must be 1")
    threshold = float(nms.nms_threshold)
    top_k = int(nms.top_k) if nms.HasField("top_k") else -1
    if n.has_attr("nms_threshold"):  # the old SSD fields, outside nms_param
        threshold = float(n.attr("nms_threshold"))
    if n.has_attr("top_k"):
        top_k = int(n.attr("top_k"))
    # Caffe keeps every box when no threshold is given
    confidence = (float(n.attr("confidence_threshold")) if n.has_attr("confidence_threshold")
                  else -float(np.finfo(np.float32).max))
    if n.num_inputs not in (3, 5):
        n.reject(f"{n.num_inputs} bottoms (loc, conf and priors are needed, and RefineDet's "
                 "ARM conf and loc may follow)")
    flat = [n.op("Reshape", [n.input(i), n.const([0, -1], I64)], special_zero=True)
            for i in range(n.num_inputs) if i != 2]
    priors = n.input(2)
    encoded = bool(n.attr("variance_encoded_in_target"))
    if encoded:  # Caffe passes the variances along unused; DetectionOutput takes the boxes alone
        priors = n.op("Slice", [priors, n.const([0], I64), n.const([1], I64), n.const([1], I64),
                                n.const([1], I64)])
    inputs = [flat[0], flat[1], priors, *flat[2:]]
    return [n.op("DetectionOutput", inputs,
                 background_label_id=int(n.attr("background_label_id")), top_k=top_k,
                 variance_encoded_in_target=encoded,
                 keep_top_k=[int(n.attr("keep_top_k"))],
                 code_type=f"caffe.PriorBoxParameter.{_enum(n, 'code_type')}",
                 share_location=bool(n.attr("share_location")), nms_threshold=threshold,
                 confidence_threshold=confidence, clip_after_nms=False, clip_before_nms=False,
                 decrease_label_id=False, normalized=True, input_height=1, input_width=1,
                 objectness_score=float(n.attr("objectness_score", 0.0)))]


@caffe_op("PriorBoxClustered")
def prior_box_clustered(n: CaffeNode):
    """Boxes of the given widths and heights centred on every cell of the feature map (bottom
    0) of the image (bottom 1, or img_size / img_h, img_w); [1, 2, L] as PriorBox."""
    width, height = _floats(n, "width"), _floats(n, "height")
    if not width or len(width) != len(height):
        n.reject(f"{len(width)} width and {len(height)} height values; give one of each per box")
    variance = _variance(n)
    boxes = n.op("PriorBoxClustered", [_hw(n, n.input(0)), _image(n)], width=width,
                 height=height, clip=bool(n.attr("clip")), step=float(n.attr("step", 0.0)),
                 step_w=float(n.attr("step_w", 0.0)), step_h=float(n.attr("step_h", 0.0)),
                 offset=float(n.attr("offset")), variance=variance or [0.1])
    return [n.op("Unsqueeze", [boxes, n.const([0], I64)])]


@caffe_op("RegionYolo")
def region_yolo(n: CaffeNode):
    """YOLO's region layer; the axes it flattens come from the layer's flatten_param."""
    flatten = n.pb.flatten_param
    return [n.op("RegionYolo", [n.input(0)], coords=int(n.attr("coords")),
                 classes=int(n.attr("classes")), num=int(n.attr("num")),
                 do_softmax=bool(n.attr("do_softmax")), anchors=_floats(n, "anchors"),
                 mask=[int(m) for m in n.attr("mask", [])], axis=int(flatten.axis),
                 end_axis=int(flatten.end_axis))]


@caffe_op("ReorgYolo")
def reorg_yolo(n: CaffeNode):
    return [n.op("ReorgYolo", [n.input(0)], stride=[int(n.attr("stride"))] * 2)]


@caffe_op("ROIPooling")
def roi_pooling(n: CaffeNode):
    """Max pooling of each region (bottom 1: [R, 5] batch index and box) of the map."""
    return [n.op("ROIPooling", [n.input(0), n.input(1)], pooled_h=int(n.attr("pooled_h")),
                 pooled_w=int(n.attr("pooled_w")), spatial_scale=float(n.attr("spatial_scale")),
                 method="max")]


@caffe_op("PSROIPooling")
def psroi_pooling(n: CaffeNode):
    """R-FCN's position-sensitive pooling (average) of each region (bottom 1: [R, 5])."""
    missing = [f for f in ("spatial_scale", "output_dim", "group_size") if not n.has_attr(f)]
    if missing:
        n.reject(f"psroi_pooling_param lacks {', '.join(missing)}", "give all three")
    return [n.op("PSROIPooling", [n.input(0), n.input(1)], mode="average",
                 spatial_scale=float(n.attr("spatial_scale")),
                 output_dim=int(n.attr("output_dim")), group_size=int(n.attr("group_size")))]


@caffe_op("CTCGreedyDecoder")
def ctc_greedy_decoder(n: CaffeNode):
    """Best-path decoding of [T, N, C] scores under the [T, N] sequence indicators."""
    blank = int(n.attr("blank_index"))
    if blank >= 0:
        n.reject(f"blank_index {blank}: OpenVINO's decoder takes the last class as the blank",
                 "leave blank_index unset (-1), with the blank as the last class")
    return [n.op("CTCGreedyDecoder", [n.input(0), n.input(1)],
                 ctc_merge_repeated=bool(n.attr("ctc_merge_repeated")))]


# py-faster-rcnn's test-time RPN settings, MO's defaults for its proposal layers
_RPN = {"feat_stride": 16, "base_size": 16, "min_size": 16, "ratio": [0.5, 1.0, 2.0],
        "scale": [8.0, 16.0, 32.0], "pre_nms_topn": 6000, "post_nms_topn": 300,
        "nms_thresh": 0.7}


def _proposal(n: CaffeNode, attrs: dict) -> list[Port]:
    """Proposal-4 over the RPN scores [N, 2K, H, W], deltas [N, 4K, H, W] and Caffe's im_info
    [1, 3]: the rois [N * post_nms_topn, 5], and their scores when a second top asks."""
    if n.num_inputs != 3:
        n.reject(f"{n.num_inputs} bottom(s); a proposal layer takes the RPN scores, box deltas "
                 "and im_info")
    info = n.op("Reshape", [n.input(2), n.const([-1], I64)])
    ints = {k: int(v) for k, v in attrs.items() if k not in ("ratio", "scale", "nms_thresh")}
    node = n.op_node("Proposal", [n.input(0), n.input(1), info], **ints,
                     ratio=[float(r) for r in attrs["ratio"]],
                     scale=[float(s) for s in attrs["scale"]],
                     nms_thresh=float(attrs["nms_thresh"]))
    return [node.out_port(0), node.out_port(1)][:n.num_outputs]


@caffe_op("Proposal")
def proposal(n: CaffeNode):
    """The C++ proposal layer; ratio and scale default to py-faster-rcnn's."""
    attrs = {k: n.attr(k, v) if isinstance(v, list) else n.attr(k) for k, v in _RPN.items()}
    return _proposal(n, attrs)


def _python_proposal(n: CaffeNode, defaults: dict) -> list[Port]:
    given = CaffePythonFrontExtractorOp.parse_param_str(n.pb.python_param.param_str)
    given = {{"ratios": "ratio", "scales": "scale"}.get(k, k): v for k, v in given.items()}
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        n.reject(f"param_str sets {', '.join(unknown)}, which a proposal layer does not take",
                 f"keep to {', '.join(sorted(defaults))}")
    return _proposal(n, {**defaults, **given})


@caffe_op("rpn.proposal_layer.ProposalLayer")
def rpn_proposal(n: CaffeNode):
    """py-faster-rcnn's Python proposal layer; param_str sets feat_stride, scales, ..."""
    return _python_proposal(n, _RPN)


@caffe_op("SSH.layers.proposal_layer.ProposalLayer")
def ssh_proposal(n: CaffeNode):
    """SSH's Python proposal layer: 1000 boxes before and after NMS, which keeps them all."""
    return _python_proposal(n, {**_RPN, "pre_nms_topn": 1000, "post_nms_topn": 1000,
                                "nms_thresh": 1.0})
