"""MO op classes that only stood for a framework op until one of MO's front passes replaced
them (no IR type): they build MO's node for that pass; left in place, inference says which
pass to copy."""

from __future__ import annotations

from typing import Any

from converter.errors import ShapeInferenceError
from converter.graph.graph import Graph, Node
from converter.legacy.ops import Op

__all__ = ["FRONT_ONLY", "front_only_class"]

# MO class -> (MO's op name, the MO front pass that replaces it)
FRONT_ONLY: dict[str, tuple[str, str]] = {
    "SoftmaxONNX": ("SoftMaxONNX", "front/onnx/softmaxONNX_to_softmax.py"),
    "LogSoftmaxONNX": ("LogSoftmaxONNX", "front/onnx/logsoftmaxONNX_to_logsoftmax.py"),
    "ONNXPad": ("ONNXPad", "front/onnx/pad_converter.py"),
    "ConstantOfShape": ("ConstantOfShape", "front/onnx/constant_of_shape_to_broadcast.py"),
    "ClibByValueTF": ("ClipByValueTF", "front/tf/ClipByValueTFTransformation.py"),
    "ConstantFill": ("ConstantFill", "front/FillToBroadcast.py"),
    "AttributedSlice": ("AttributedSlice", "front/onnx/AttributedSliceToSlice.py"),
    "CaffeSlice": ("CaffeSlice", "front/caffe/slice_to_split.py"),
    "TFSlice": ("TFSlice", "front/tf/TFSliceToSlice.py"),
    "ONNXResize10": ("ONNXResize10", "front/onnx/ONNXResize10ToInterpolate.py"),
    "TFResize": ("TFResize", "front/tf/TFResizeToInterpolate.py"),
    "ATen": ("ATen", "front/ATenToEmbeddingBag.py"),
    "MXRepeat": ("MXRepeat", "front/mxnet/MXRepeatReplacer.py"),
    "BN": ("BN", "front/caffe/bn.py"),
    "EltwiseN": ("EltwiseN", "front/eltwise_n.py"),
}


def front_only_class(name: str) -> type:
    mo_op, replaced_by = FRONT_ONLY[name]

    def __init__(self, graph: Graph, attrs1: dict | None = None, attrs2: dict | None = None):
        Op.__init__(self, graph, {"op": mo_op, "type": None, "infer": infer,
                                  "in_ports_count": None, "out_ports_count": 1}, {
            **(attrs1 or {}), **(attrs2 or {})})

    def infer(node: Node) -> None:
        msg = (f"node '{node.soft_get('name', node.id)}' is MO's {name}, which MO's front pass "
               f"{replaced_by} replaces; copy that pass into your extension folder")
        raise ShapeInferenceError(msg)

    attrs: dict[str, Any] = {"__init__": __init__, "__module__": __name__, "__qualname__": name,
                             "__doc__": f"MO's {name} (replaced by {replaced_by})."}
    return type(name, (Op,), attrs)
