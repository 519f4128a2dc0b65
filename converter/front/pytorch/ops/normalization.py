"""ATen normalization ops: batch norm (inference), layer norm, group norm."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.ops._common import per_channel_shape
from converter.front.pytorch.translator import TorchNode, aten_op
from converter.graph.port import Port


def _affine(n: TorchNode, y: Port, weight: Port | None, bias: Port | None) -> Port:
    if weight is not None:
        y = n.op("Multiply", [y, weight])
    return y if bias is None else n.op("Add", [y, bias])


@aten_op("aten::_native_batch_norm_legit_no_training", "aten::batch_norm",
         "aten::native_batch_norm", "aten::_native_batch_norm_legit")
def batch_norm(n: TorchNode):
    if n.value("training", False) and n.op_type != "aten::_native_batch_norm_legit_no_training":
        n.reject_arg("training", "batch statistics (training mode) are not supported; "
                     "call model.eval() before exporting")
    mean, var = n.tensor("running_mean"), n.tensor("running_var")
    channels = n.op("ShapeOf", [mean], output_type=np.dtype(np.int64))
    weight, bias = n.arg("weight"), n.arg("bias")
    if weight is None:
        weight = n.op("Broadcast", [n.op("ConvertLike", [n.const(1.0), mean]), channels])
    if bias is None:
        bias = n.op("Broadcast", [n.op("ConvertLike", [n.const(0.0), mean]), channels])
    y = n.op("BatchNormInference", [n.tensor("input"), weight, bias, mean, var],
             epsilon=float(n.value("eps")))
    return [y, None, None]


@aten_op("aten::native_layer_norm", "aten::layer_norm")
def layer_norm(n: TorchNode):
    count = len(n.value("normalized_shape"))
    axes = n.const(np.arange(-count, 0, dtype=np.int64))
    y = n.op("MVN", [n.tensor("input"), axes], eps=float(n.value("eps")),
             eps_mode="inside_sqrt", normalize_variance=True)
    return [_affine(n, y, n.arg("weight"), n.arg("bias")), None, None]


@aten_op("aten::native_group_norm", "aten::group_norm")
def group_norm(n: TorchNode):
    groups = int(n.value("group" if "group" in n.names else "num_groups"))
    x = n.tensor("input")
    grouped = n.op("Reshape", [x, n.const([0, groups, -1], np.int64)], special_zero=True)
    y = n.op("MVN", [grouped, n.const([2], np.int64)], eps=float(n.value("eps")),
             eps_mode="inside_sqrt", normalize_variance=True)
    y = n.op("Reshape", [y, n.op("ShapeOf", [x], output_type=np.dtype(np.int64))])
    weight, bias = n.arg("weight"), n.arg("bias")
    shape = per_channel_shape(n, x)
    weight = None if weight is None else n.op("Reshape", [weight, shape])
    bias = None if bias is None else n.op("Reshape", [bias, shape])
    return [_affine(n, y, weight, bias), None, None]
