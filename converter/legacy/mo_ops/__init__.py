"""MO's op classes (mo.ops.*, extensions.ops.*) as extgen's ops: MO's attributes and inputs in,
the opset op extgen's frontends build out, `infer(node)` in MO's partial-inference style.

`MO_OPS` says where MO kept each class (below the legacy root); names resolve on first use.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["MO_OPS"]

MO_OPS: dict[str, tuple[str, ...]] = {
    "ops.ClipByValueTF": ("ClibByValueTF",),
    "ops.GRUCell": ("GRUCell",),
    "ops.RNNCell": ("RNNCell",),
    "ops.lstm_cell": ("LSTMCell",),
    "ops.ConvertLike": ("ConvertLike",),
    "ops.DetectionOutput": ("DetectionOutput",),
    "ops.MatMul": ("FullyConnected",),
    "ops.ONNXResize10": ("ONNXResize10",),
    "ops.TFResize": ("TFResize",),
    "ops.BN": ("BN",),
    "ops.aten": ("ATen",),
    "ops.ReduceOps": ("ReduceLogicalAnd", "ReduceLogicalOr"),
    "ops.broadcast": ("Broadcast",),
    "ops.bucketize": ("Bucketize",),
    "ops.activation_ops": ("ReLU6", "LeakyReLU"),
    "ops.BatchNormInference": ("BatchNormInference",),
    "ops.assign": ("Assign",),
    "ops.convolution": ("Convolution",),
    "ops.crop": ("Crop",),
    "ops.deconvolution": ("Deconvolution",),
    "ops.constant_of_shape": ("ConstantOfShape",),
    "ops.ctc_greedy_decoder": ("CTCGreedyDecoderOp",),
    "ops.ctc_greedy_decoder_seq_len": ("CTCGreedyDecoderSeqLenOp",),
    "ops.constant_fill": ("ConstantFill",),
    "ops.cumsum": ("CumSum",),
    "ops.deformable_convolution": ("DeformableConvolution",),
    "ops.depth_to_space": ("DepthToSpaceOp",),
    "ops.dft": ("DFT", "IDFT", "RDFT", "IRDFT"),
    "ops.einsum": ("Einsum",),
    "ops.elementwise": ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"),
    "ops.eltwise": ("Eltwise",),
    "ops.eltwise_n": ("EltwiseNAdd", "EltwiseNMul", "EltwiseNMax", "EltwiseNMin", "EltwiseN"),
    "ops.expand_dims": ("ExpandDims",),
    "ops.eye": ("Eye",),
    "ops.fill": ("Fill",),
    "ops.flatten": ("Flatten", "FlattenONNX"),
    "ops.fakequantize": ("FakeQuantize",),
    "ops.gather": ("AttributedGather",),
    "ops.gatherelements": ("GatherElements",),
    "ops.gathernd": ("GatherND",),
    "ops.gelu": ("GeLUOP",),
    "ops.grn": ("GRNOp",),
    "ops.group_norm": ("GroupNormalization",),
    "ops.hard_sigmoid": ("HardSigmoid",),
    "ops.identity": ("Identity", "IdentityN"),
    "ops.instance_normalization": ("InstanceNormalization",),
    "ops.interpolate": ("Interpolate",),
    "ops.log_softmax": ("LogSoftmax", "LogSoftmaxONNX"),
    "ops.lrn": ("LRN", "AttributedLRN"),
    "ops.mxrepeat": ("MXRepeat",),
    "ops.mvn": ("MVN", "MVNOnnx", "MVNCaffe"),
    "ops.non_max_suppression": ("NonMaxSuppression",),
    "ops.non_zero": ("NonZero",),
    "ops.normalize": ("NormalizeOp",),
    "ops.normalize_l2": ("NormalizeL2Op",),
    "ops.one_hot": ("OneHot",),
    "ops.pad": ("Pad", "AttributedPad", "ONNXPad"),
    "ops.permute": ("Permute",),
    "ops.pooling": ("Pooling",),
    "ops.power": ("AttributedPower",),
    "ops.prelu": ("PReLU",),
    "ops.priorbox": ("PriorBoxOp",),
    "ops.priorbox_clustered": ("PriorBoxClusteredOp",),
    "ops.range": ("Range",),
    "ops.rank": ("Rank",),
    "ops.read_value": ("ReadValue",),
    "ops.regionyolo": ("RegionYoloOp",),
    "ops.reorgyolo": ("ReorgYoloOp",),
    "ops.reverse_sequence": ("ReverseSequence",),
    "ops.roialign": ("ROIAlign",),
    "ops.roipooling": ("ROIPooling",),
    "ops.roll": ("Roll", "AttributedRoll"),
    "ops.scale_shift": ("ScaleShiftOp",),
    "ops.scatter": ("ScatterElementsUpdate", "ScatterUpdate"),
    "ops.scatternd": ("ScatterNDUpdate",),
    "ops.select": ("Select",),
    "ops.shufflechannel": ("ShuffleChannels",),
    "ops.size": ("Size",),
    "ops.softmax": ("SoftmaxONNX",),
    "ops.slice": ("Slice", "AttributedSlice", "CaffeSlice", "TFSlice"),
    "ops.space_to_depth": ("SpaceToDepth",),
    "ops.split": ("VariadicSplit", "AttributedVariadicSplit", "Split", "AttributedSplit"),
    "ops.stop_gradient": ("StopGradientOp",),
    "ops.strided_slice": ("StridedSlice",),
    "ops.tile": ("Tile", "AttributedTile"),
    "ops.topk": ("TopK",),
}

_OWN_MODULES = {
    **dict.fromkeys(("Convolution", "Deconvolution", "Pooling", "DeformableConvolution"),
                   "window"),
    **dict.fromkeys(("Interpolate", "Crop", "ScaleShiftOp", "FullyConnected", "AttributedPower",
                     "Eltwise", "Flatten", "FlattenONNX"), "reshaped"),
    **dict.fromkeys(("Identity", "IdentityN", "StopGradientOp"), "identity"),
    **dict.fromkeys(("LSTMCell", "GRUCell", "RNNCell"), "cells"),
    **dict.fromkeys(("Rank", "Size", "InstanceNormalization", "NormalizeOp", "EltwiseNAdd",
                     "EltwiseNMul", "EltwiseNMax", "EltwiseNMin"), "decomposed"),
    **dict.fromkeys(("Slice", "Fill", "MVNCaffe", "StridedSlice", "Split", "AttributedLRN"),
                   "same"),
}


@functools.cache
def _class(name: str) -> type:
    import importlib

    from converter.legacy.mo_ops.front_only import FRONT_ONLY, front_only_class
    from converter.legacy.mo_ops.same import mo_class

    if name in FRONT_ONLY:
        return front_only_class(name)
    if name in _OWN_MODULES:
        return getattr(importlib.import_module(f"{__name__}.{_OWN_MODULES[name]}"), name)
    return mo_class(name)


def __getattr__(name: str) -> Any:
    if not any(name in names for names in MO_OPS.values()):
        raise AttributeError(name)
    from converter.legacy.mo_ops.lowering import register

    register()
    return _class(name)
