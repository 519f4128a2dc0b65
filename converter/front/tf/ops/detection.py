"""TensorFlow translators for detection heads: NonMaxSuppressionV2/V3/V4/V5 as
NonMaxSuppression-9 on one batch and one class, and TopKV2 as TopK-11."""

from __future__ import annotations

import numpy as np

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
