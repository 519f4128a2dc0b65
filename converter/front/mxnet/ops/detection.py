"""MXNet translators for the symbol API's SSD head: _contrib_MultiBoxPrior onto PriorBox-8 and
_contrib_MultiBoxDetection onto DetectionOutput-8, with MO's attributes (mo/front/mxnet
extractors multibox_prior.py and multibox_detection_ext.py).

Each keeps MXNet's own tensor layouts, so the Flatten/Concat/Reshape/transpose/softmax nodes of
an SSD symbol between them translate as they are: the anchors are [1, H*W*A, 4] corner boxes
and MultiBoxDetection takes the class scores [N, C, P], the offsets [N, P*4] and the anchors.
MO removed those nodes by pattern instead; the numbers are the same."""

from __future__ import annotations

import numpy as np

from converter.front.mxnet.translator import MxnetNode, mxnet_op
from converter.graph.port import Port

I64 = np.dtype(np.int64)


def _hw(n: MxnetNode, x: Port) -> Port:
    """[H, W] of an NCHW tensor."""
    shape = n.op("ShapeOf", [x], output_type=I64)
    return n.op("Gather", [shape, n.const([2, 3], I64), n.const(0, I64)], batch_dims=0)


def _image(n: MxnetNode) -> Port:
    """The model input the anchors are relative to: 'data' (as MO took it), else the first."""
    params = n.node.graph.get_op_nodes(op="Parameter")
    if not params:
        n.reject("the model has no input for the anchors' image size")
    order = ["data", *(n.node.graph.graph.get("input_order") or [])]
    named = {p.soft_get("name"): p for p in params}
    param = next((named[k] for k in order if k in named), params[0])
    return param.out_port(0)


@mxnet_op("_contrib_MultiBoxPrior", "MultiBoxPrior")
def multibox_prior(n: MxnetNode):
    """Anchors [1, H*W*A, 4]: PriorBox's MXNet-like mode (scale_all_sizes false: sizes and
    steps relative to the image), its box row reshaped."""
    sizes = list(n.attrs.tuple("sizes", float, (1.0,)))
    ratios = list(n.attrs.tuple("ratios", float, (1.0,))) or [1.0]
    offset_y, offset_x = n.attrs.tuple("offsets", float, (0.5, 0.5))
    step_y, step_x = n.attrs.tuple("steps", float, (-1.0, -1.0))
    if step_y != step_x or offset_y != offset_x:
        n.reject(f"steps {step_y:g},{step_x:g} / offsets {offset_y:g},{offset_x:g} differ "
                 "between y and x; PriorBox takes one of each")
    boxes = n.op("PriorBox", [_hw(n, n.input(0)), _hw(n, _image(n))], min_size=sizes,
                 max_size=[], aspect_ratio=ratios, flip=False,
                 clip=n.attrs.bool("clip", False), step=step_x, offset=offset_x,
                 variance=[0.1, 0.1, 0.2, 0.2], scale_all_sizes=False,
                 min_max_aspect_ratios_order=True)
    first = n.op("Gather", [boxes, n.const(0, I64), n.const(0, I64)], batch_dims=0)
    return [n.op("Reshape", [first, n.const([1, -1, 4], I64)], special_zero=False)]


@mxnet_op("_contrib_MultiBoxDetection", "MultiBoxDetection")
def multibox_detection(n: MxnetNode):
    """DetectionOutput in its MXNet mode (decrease_label_id: the best class per anchor,
    background 0 dropped): scores [N, C, P] -> [N, P*C], anchors [1, P, 4] -> boxes and
    variances [1, 2, P*4]."""
    if n.attrs.int("background_id", 0) != 0:
        n.reject("background_id must be 0 (DetectionOutput's MXNet mode drops class 0)")
    scores = n.op("Transpose", [n.input(0), n.const([0, 2, 1], I64)])
    scores = n.op("Reshape", [scores, n.const([0, -1], I64)], special_zero=True)
    anchors = n.input(2)
    variances = np.array(n.attrs.tuple("variances", float, (0.1, 0.1, 0.2, 0.2)), np.float32)
    if variances.shape != (4,):
        n.reject(f"{variances.size} variances (4 are needed)")
    spread = n.op("Broadcast", [n.const(variances), n.op("ShapeOf", [anchors], output_type=I64)],
                  mode="numpy")
    priors = n.op("Concat", [anchors, spread], axis=0)
    priors = n.op("Reshape", [priors, n.const([1, 2, -1], I64)], special_zero=False)
    top_k = n.attrs.int("nms_topk", -1)
    return [n.op("DetectionOutput", [n.input(1), scores, priors],
                 background_label_id=0, top_k=top_k, keep_top_k=[top_k],
                 variance_encoded_in_target=False, code_type="caffe.PriorBoxParameter.CENTER_SIZE",
                 share_location=True, nms_threshold=n.attrs.float("nms_threshold", 0.5),
                 confidence_threshold=n.attrs.float("threshold", 0.01),
                 clip_after_nms=False, clip_before_nms=n.attrs.bool("clip", True),
                 decrease_label_id=True, normalized=True, input_height=1, input_width=1,
                 objectness_score=0.0)]
