"""ONNX translators for the loss family: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss,
decomposed into a class-axis gather, per-class weights and a reduction."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.int64


def _total(n: OnnxNode, x: Port) -> Port:
    """The sum of all of x's elements, a scalar."""
    flat = n.op("Reshape", [x, np.array([-1], I64)], special_zero=False)
    return n.op("ReduceSum", [flat, np.array(0, I64)], keep_dims=False)


def nll_loss(n: OnnxNode, log_prob: Port, target: Port, weight: Port | None) -> Port:
    """-log_prob[n, target[n, ...], ...] weighted per class, then reduced as n's attributes say;
    targets equal to ignore_index count for nothing."""
    ignore = n.attr("ignore_index")
    keep = None if ignore is None else n.op("NotEqual", [target, n.op(
        "ConvertLike", [n.const(ignore, I64), target])])
    if keep is not None:
        target = n.op("Select", [keep, target, n.op("ConvertLike", [n.const(0, I64), target])])
    picked = n.op("GatherElements", [log_prob, n.op("Unsqueeze", [target, np.array(1, I64)])],
                  axis=1)
    loss = n.op("Negative", [n.op("Squeeze", [picked, np.array([1], I64)])])
    w = None if weight is None else n.op("Gather", [weight, target, np.array(0, I64)])
    if keep is not None:
        mask = n.op("ConvertLike", [keep, log_prob])
        w = mask if w is None else n.op("Multiply", [w, mask])
    if w is not None:
        loss = n.op("Multiply", [loss, w])
    reduction = n.attr("reduction", "mean")
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _total(n, loss)
    if w is None:
        count = n.op("ConvertLike", [n.op("ShapeOf", [n.op("Reshape", [
            loss, np.array([-1], I64)], special_zero=False)], output_type=np.dtype(I64)), loss])
        return n.op("Divide", [_total(n, loss), n.op("Squeeze", [count, np.array([0], I64)])])
    return n.op("Divide", [_total(n, loss), _total(n, w)])


@onnx_op("NegativeLogLikelihoodLoss")
def negative_log_likelihood_loss(n: OnnxNode):
    return [nll_loss(n, n.input(0), n.input(1), n.input(2))]


@onnx_op("SoftmaxCrossEntropyLoss")
def softmax_cross_entropy_loss(n: OnnxNode):
    log_prob = n.op("LogSoftmax", [n.input(0)], axis=1)
    return [nll_loss(n, log_prob, n.input(1), n.input(2)), log_prob]

