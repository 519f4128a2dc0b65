"""Caffe layer translators: functions that turn one Caffe layer into opset ops.

    @caffe_op("ReLU")
    def relu(n: CaffeNode) -> list[Port]:
        return [n.op("ReLU", [n.input(0)])]

A translator returns one output port per top blob. `n.param` is the layer's parameter message
(convolution_param for Convolution, ...), `n.attr(name, default)` one of its fields and
`n.blob(i)` the i-th weights blob of the .caffemodel as numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.errors import ModelFormatError
from converter.front.caffe.attrs import blob_array, is_repeated
from converter.front.translator import NodeContext, TranslatorRegistry
from converter.graph.graph import Node

__all__ = ["PARAM_FIELDS", "REGISTRY", "CaffeNode", "caffe_op"]

# layer type -> the LayerParameter field holding its parameters
PARAM_FIELDS = {
    "Convolution": "convolution_param", "Deconvolution": "convolution_param",
    "Pooling": "pooling_param", "InnerProduct": "inner_product_param", "ReLU": "relu_param",
    "PReLU": "prelu_param", "ELU": "elu_param", "Sigmoid": "sigmoid_param", "TanH": "tanh_param",
    "BatchNorm": "batch_norm_param", "Scale": "scale_param", "Bias": "bias_param",
    "Eltwise": "eltwise_param", "Concat": "concat_param", "Slice": "slice_param",
    "Softmax": "softmax_param", "Flatten": "flatten_param", "Reshape": "reshape_param",
    "Dropout": "dropout_param", "LRN": "lrn_param", "Power": "power_param", "Exp": "exp_param",
    "Log": "log_param", "Permute": "permute_param", "Normalize": "norm_param",
    "PriorBox": "prior_box_param", "DetectionOutput": "detection_output_param",
    "Clip": "clip_param", "Swish": "swish_param", "MVN": "mvn_param", "Tile": "tile_param",
    "Python": "python_param", "Crop": "crop_param", "ArgMax": "argmax_param",
    "Interp": "interp_param", "ReLU6": "relu6_param", "ShuffleChannel": "shuffle_channel_param",
    "GRN": "grn_param", "PriorBoxClustered": "prior_box_param",
    "RegionYolo": "region_yolo_param", "ReorgYolo": "reorg_yolo_param",
    "ROIPooling": "roi_pooling_param", "CTCGreedyDecoder": "ctc_decoder_param",
    "Proposal": "proposal_param", "PSROIPooling": "psroi_pooling_param",
}


class CaffeNode(NodeContext):
    """What a Caffe translator sees: the layer, its parameters and weights, inputs, op builder."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.pb = node.pb
        self.model_pb = node.soft_get("model_pb", None)
        self.type: str = node.soft_get("caffe_type", node.op)
        field = PARAM_FIELDS.get(self.type)
        fields = self.pb.DESCRIPTOR.fields_by_name
        self.param = getattr(self.pb, field) if field in fields else None

    @classmethod
    def key(cls, node: Node) -> tuple[str | None, int]:
        """The layer type; for a Python layer its `module.layer`."""
        layer_type = node.soft_get("caffe_type", node.op)
        return (node.soft_get("op") if layer_type == "Python" else layer_type), 1 << 30

    @property
    def op_type(self) -> str:
        return self.type

    @property
    def num_outputs(self) -> int:
        return len(self.pb.top)

    def has_attr(self, name: str) -> bool:
        if self.param is None or name not in self.param.DESCRIPTOR.fields_by_name:
            return False
        if is_repeated(self.param.DESCRIPTOR.fields_by_name[name]):
            return len(getattr(self.param, name)) > 0
        return self.param.HasField(name)

    def attr(self, name: str, default: Any = None) -> Any:
        """A field of the parameter message: its value when set, else default (None: the
        .proto's default). Repeated fields are lists, enums their value names."""
        if self.param is None or name not in self.param.DESCRIPTOR.fields_by_name:
            return default
        field = self.param.DESCRIPTOR.fields_by_name[name]
        value = getattr(self.param, name)
        if is_repeated(field):
            return list(value) if len(value) or default is None else default
        if not self.param.HasField(name) and default is not None:
            return default
        if field.enum_type is not None:
            return field.enum_type.values_by_number[value].name
        return value

    @property
    def num_blobs(self) -> int:
        return 0 if self.model_pb is None else len(self.model_pb.blobs)

    def blob(self, i: int) -> np.ndarray:
        """The i-th weights blob; one clear error when the .caffemodel lacks it."""
        if i >= self.num_blobs:
            where = ("no layer of that name" if self.model_pb is None
                     else f"{self.num_blobs} blob(s)")
            msg = (f"layer '{self.name}' ({self.type}): the .caffemodel has {where}, "
                   f"weights blob {i} is needed (a model for another network, or truncated?)")
            raise ModelFormatError(msg)
        return blob_array(self.model_pb.blobs[i], f"layer '{self.name}' weights blob {i}")


REGISTRY = TranslatorRegistry(
    CaffeNode, ["converter.front.caffe.ops", "converter.front.caffe.activation",
                "converter.front.caffe.detection", "converter.front.caffe.movement",
                "converter.front.caffe.resize"])
caffe_op = REGISTRY.op
