"""TensorFlow translators for detection heads: NonMaxSuppressionV2/V3/V4/V5 as
NonMaxSuppression-9 on one batch and one class, and TopKV2 as TopK-11."""

from __future__ import annotations

import numpy as np

from converter.front.tf.ops.movement import gather_rows
from converter.front.tf.translator import TfNode, tf_op
from converter.graph.port import Port

_I64 = np.dtype(np.int64)


def _column(n: TfNode, table: Port, column: int) -> Port:
    """Column `column` of an NMS output table [K, 3] as a [K] vector."""
    return n.op("Gather", [table, n.const(column, np.int64), n.const(1, np.int64)], batch_dims=0)


def _padded(n: TfNode, x: Port, limit: Port) -> Port:
    """x [K] padded with zeros to `limit` (TF's pad_to_max_output_size)."""
    missing = n.op("Subtract", [limit, n.op("ShapeOf", [x], output_type=_I64)])
    return n.op("Pad", [x, n.const([0], np.int64), missing], pad_mode="constant")


@tf_op("NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4",
       "NonMaxSuppressionV5")
def non_max_suppression(n: TfNode):
    boxes = n.op("Unsqueeze", [n.input(0), n.const([0], np.int64)])
    scores = n.op("Unsqueeze", [n.input(1), n.const([0, 1], np.int64)])
    limit = n.op("Reshape", [n.op("Convert", [n.input(2)], destination_type=_I64),
                             n.const([1], np.int64)], special_zero=False)
    soft = n.op_type == "NonMaxSuppressionV5"
    extra = [n.input(i) for i in range(3, n.num_inputs)]  # iou, score (V3+), sigma (V5)
    if len(extra) == 1:  # V2 keeps every score; NonMaxSuppression's default threshold is 0
        extra.append(n.const(-np.inf, n.attr("T", np.dtype(np.float32))))
    nms = n.op_node("NonMaxSuppression", [boxes, scores, limit, *extra], box_encoding="corner",
                    sort_result_descending=True, output_type=np.dtype(np.int32))
    outputs = [_column(n, nms.out_port(0), 2)]
    if soft:
        outputs.append(_column(n, nms.out_port(1), 2))
    if n.attr("pad_to_max_output_size", False):
        outputs = [_padded(n, x, limit) for x in outputs]
    if n.op_type in ("NonMaxSuppressionV2", "NonMaxSuppressionV3"):
        return outputs
    valid = n.op("Squeeze", [nms.out_port(2), n.const([0], np.int64)])
    return [*outputs, valid]


@tf_op("TopKV2")
def top_k_v2(n: TfNode):
    # TF keeps the lower index first among equal values (a stable sort); sorted=False leaves
    # the order free, so the sorted one serves too
    node = n.op_node("TopK", [n.input(0), n.input(1)], axis=-1, mode="max", sort="value",
                     index_element_type=n.attr("index_type", np.dtype(np.int32)), stable=True)
    return [node.out_port(0), node.out_port(1)]


def _scalar_i64(n: TfNode, port: Port) -> Port:
    return n.op("Reshape", [n.op("Convert", [port], destination_type=_I64),
                            n.const([], np.int64)], special_zero=False)


def _kept_scores(n: TfNode, boxes: Port, scores: Port) -> Port:
    """[B, C * N]: each box's score in each class where per-class NMS kept it, else -inf."""
    per_class = n.op("Transpose", [scores, n.const([0, 2, 1], np.int64)])  # [B, C, N]
    limit = n.op("Reshape", [n.op("Convert", [n.input(2)], destination_type=_I64),
                             n.const([1], np.int64)], special_zero=False)
    nms = n.op_node("NonMaxSuppression", [boxes, per_class, limit, n.input(4), n.input(5)],
                    box_encoding="corner", sort_result_descending=False, output_type=_I64)
    dtype = n.attr("T", np.dtype(np.float32))
    empty = n.op("Broadcast", [n.const(-np.inf, dtype), n.op("ShapeOf", [per_class],
                                                              output_type=_I64)], mode="numpy")
    kept = n.op("ScatterNDUpdate", [empty, nms.out_port(0), _column(n, nms.out_port(1), 2)])
    return n.op("Reshape", [kept, n.const([0, -1], np.int64)], special_zero=True)


@tf_op("CombinedNonMaxSuppression")
def combined_nms(n: TfNode):
    """Per-class NMS on boxes shared by the classes (q = 1), then each image's best
    max_total_size detections over all classes, zero-padded."""
    boxes = n.op("Squeeze", [n.input(0), n.const([2], np.int64)])  # [B, N, 4]
    flat = _kept_scores(n, boxes, n.input(1))
    count = n.op("Gather", [n.op("ShapeOf", [boxes], output_type=_I64), n.const(1, np.int64),
                            n.const(0, np.int64)], batch_dims=0)
    total = _scalar_i64(n, n.input(3))
    if n.attr("pad_per_class", False):
        classes = n.op("Gather", [n.op("ShapeOf", [n.input(1)], output_type=_I64),
                                  n.const(2, np.int64), n.const(0, np.int64)], batch_dims=0)
        total = n.op("Minimum", [total, n.op("Multiply", [_scalar_i64(n, n.input(2)), classes])])
    k = n.op("Minimum", [total, n.op("Gather", [n.op("ShapeOf", [flat], output_type=_I64),
                                                n.const(1, np.int64), n.const(0, np.int64)],
                                     batch_dims=0)])
    top = n.op_node("TopK", [flat, k], axis=1, mode="max", sort="value",
                    index_element_type=_I64, stable=True)
    values, index = top.out_port(0), top.out_port(1)
    valid = n.op("Greater", [values, n.const(-np.inf, n.attr("T", np.dtype(np.float32)))])
    picked = gather_rows(n, boxes, n.op("FloorMod", [index, count]))
    if n.attr("clip_boxes", True):
        picked = n.op("Clamp", [picked], min=0.0, max=1.0)
    label = n.op("Convert", [n.op("Divide", [index, count], m_pythondiv=False)],
                 destination_type=np.dtype(np.float32))
    zero = n.const(0.0, np.float32)
    outs = [n.op("Select", [n.op("Unsqueeze", [valid, n.const([2], np.int64)]), picked, zero],
                 auto_broadcast="numpy"),
            n.op("Select", [valid, values, zero], auto_broadcast="numpy"),
            n.op("Select", [valid, label, zero], auto_broadcast="numpy")]
    missing = n.op("Reshape", [n.op("Subtract", [total, k]), n.const([1], np.int64)],
                   special_zero=False)
    outs = [n.op("Pad", [y, n.const([0, 0, 0][:rank], np.int64),
                         n.op("Concat", [n.const([0], np.int64), missing,
                                         n.const([0] * (rank - 2), np.int64)], axis=0)],
                 pad_mode="constant") for y, rank in zip(outs, (3, 2, 2))]
    found = n.op("ReduceSum", [n.op("Convert", [valid], destination_type=np.dtype(np.int32)),
                               n.const([1], np.int64)], keep_dims=False)
    return [*outs, found]
