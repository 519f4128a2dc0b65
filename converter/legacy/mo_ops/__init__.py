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
    "ops.MatMul": ("FullyConnected", "GemmONNX"),
    "ops.ONNXResize10": ("ONNXResize10",),
    "ops.TFResize": ("TFResize",),
    "ops.BN": ("BN",),
    "ops.aten": ("ATen",),
    "ops.ReduceOps": ("ReduceLogicalAnd", "ReduceLogicalOr", "ReduceAnd"),
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
    "ops.cumsum": ("CumSum", "MXNetCumSum"),
    "ops.deformable_convolution": ("DeformableConvolution",),
    "ops.depth_to_space": ("DepthToSpaceOp",),
    "ops.dft": ("DFT", "IDFT", "RDFT", "IRDFT"),
    "ops.einsum": ("Einsum",),
    "ops.elementwise": ("BiasAdd", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "Mul",
                        "Sub", "Div", "Pow"),
    "ops.Cast": ("Cast",),
    "ops.clamp": ("Clamp", "AttributedClamp"),
    "ops.eltwise": ("Eltwise",),
    "ops.eltwise_n": ("EltwiseNAdd", "EltwiseNMul", "EltwiseNMax", "EltwiseNMin", "EltwiseN"),
    "ops.expand_dims": ("ExpandDims",),
    "ops.eye": ("Eye", "MXEye", "TFEye"),
    "ops.fill": ("Fill",),
    "ops.flatten": ("Flatten", "FlattenONNX"),
    "ops.fakequantize": ("FakeQuantize",),
    "ops.gather": ("AttributedGather",),
    "ops.gatherelements": ("GatherElements",),
    "ops.gathernd": ("GatherND",),
    "ops.gelu": ("GeLUOP",),
    "ops.grn": ("GRNOp",),
    "ops.group_norm": ("GroupNormalization", "GroupNorm"),
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
    "ops.pad": ("Pad", "AttributedPad", "ONNXPad", "TFPad"),
    "ops.permute": ("Permute",),
    "ops.pooling": ("Pooling", "PoolingV2"),
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
    "ops.scatternd": ("ScatterNDUpdate", "TFScatterND"),
    "ops.select": ("Select",),
    "ops.shufflechannel": ("ShuffleChannels",),
    "ops.size": ("Size",),
    "ops.softmax": ("SoftmaxONNX", "Softmax"),
    "ops.slice": ("Slice", "AttributedSlice", "CaffeSlice", "TFSlice", "MXSlice"),
    "ops.space_to_depth": ("SpaceToDepth",),
    "ops.split": ("VariadicSplit", "AttributedVariadicSplit", "Split", "AttributedSplit"),
    "ops.stop_gradient": ("StopGradientOp",),
    "ops.strided_slice": ("StridedSlice",),
    "ops.tile": ("Tile", "AttributedTile"),
    "ops.topk": ("TopK",),
    "ops.space_to_batch": ("BatchToSpace", "SpaceToBatch"),
    "ops.GatherTree": ("GatherTree",),
    "ops.ctc_loss": ("CTCLoss",),
    "ops.proposal": ("ProposalOp",),
    "ops.psroipooling": ("PSROIPoolingOp", "DeformablePSROIPoolingOp"),
    "ops.random_uniform": ("AttributedRandomUniform", "RandomUniform"),
    "ops.detection_output_onnx": ("ExperimentalDetectronDetectionOutput",),
    "ops.proposal_onnx": ("ExperimentalDetectronGenerateProposalsSingleImage",),
    "ops.priorgridgenerator_onnx": ("ExperimentalDetectronPriorGridGenerator",),
    "ops.roifeatureextractor_onnx": ("ExperimentalDetectronROIFeatureExtractor",),
    "ops.topkrois_onnx": ("ExperimentalDetectronTopKROIs",),
    "ops.adaptive_avg_pooling": ("AdaptiveAvgPooling",),
    "ops.ExtractImagePatches": ("ExtractImagePatches",),
    # MO ops no IR holds: one of MO's passes replaced each (see front_only.py)
    "ops.memoryoffset": ("MemoryOffset",),
    "ops.argmax": ("ArgMaxOp",),
    "ops.argmin": ("ArgMinOp",),
    "ops.Reverse": ("Reverse",),
    "ops.slice_like": ("SliceLike",),
    "ops.splice": ("Splice",),
    "ops.BlockLSTM": ("BlockLSTM",),
    "ops.GRUBlockCell": ("GRUBlockCell",),
    "ops.TensorArray": ("TensorArray",),
    "ops.TensorArrayGather": ("TensorArrayGather",),
    "ops.arange_like": ("ArangeLikeOp",),
    "ops.box_nms": ("BoxNms",),
    "ops.quantize_linear": ("QuantizeLinear",),
    "ops.dequantize_linear": ("DequantizeLinear",),
    "ops.dropoutmask": ("DropoutMask",),
    "ops.lstmnonlinearity": ("LstmNonLinearity",),
    "ops.tdnncomponent": ("TdnnComponent",),
    "ops.restrictedattentioncomponent": ("RestrictedAttentionComponent",),
    "ops.pnorm": ("PNormOp",),
    "ops.embedding_bag": ("EmbeddingSegmentsMean", "EmbeddingBagOffsetsSum",
                          "EmbeddingBagPackedSum", "EmbeddingSegmentsSum"),
    "ops.sparse_segment_sum": ("SparseSegmentSum",),
    "ops.sparse_segment_mean": ("SparseSegmentMean",),
    "ops.sparse_fill_empty_rows": ("SparseFillEmptyRows",),
    "ops.unique": ("Unique",),
    "ops.layer_norm": ("LayerNorm",),
    "ops.mxreshape": ("MXReshape",),
    "ops.pack": ("PackOp",),
    "ops.swapaxis": ("SwapAxis",),
    "ops.Complex": ("Complex",),
    "ops.mxfft": ("MXFFT",),
    "ops.TFFFT": ("TFFFT",),
    "ops.ONNXResize11": ("ONNXResize11Op",),
    "ops.upsample": ("UpsampleOp",),
    "ops.sparse_segment_sqrtn": ("SparseSegmentSqrtN",),
    "ops.LookupTableInsert": ("LookupTableInsert",),
    "back.ReverseInputChannels": ("ReverseChannels",),
    "ops.TensorIterator_ops": ("TensorIteratorInput", "TensorIteratorOutput",
                               "TensorIteratorCondition", "TensorIteratorBackEdge"),
    "ops.eltwise_ninputs_in_1": ("EltwiseNin1",),
    "ops.timeheightconvolution": ("TimeHeightConvolutionComponent",),
    "ops.RNN": ("RNN",),
    "ops.GRU": ("GRU",),
    "ops.LSTM": ("LSTM",),
    "ops.loop": ("Loop",),
    "ops.If": ("If",),
    "ops.tensor_iterator": ("TensorIterator",),
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
    **dict.fromkeys(("Slice", "Fill", "MVNCaffe", "StridedSlice", "Split", "AttributedLRN",
                     "Range"), "same"),
    **dict.fromkeys(("Mul", "Sub", "Div", "Pow", "Cast", "Clamp", "AttributedClamp", "Softmax"),
                   "renamed"),
    "AdaptiveAvgPooling": "adaptive_pool",
}


@functools.cache
def _class(name: str) -> type:
    import importlib

    from converter.legacy.mo_ops.front_only import FRONT_ONLY, front_only_class
    from converter.legacy.mo_ops.mo_methods import MO_METHODS
    from converter.legacy.mo_ops.same import mo_class

    if name in FRONT_ONLY:
        cls = front_only_class(name)
    elif name in _OWN_MODULES:
        cls = getattr(importlib.import_module(f"{__name__}.{_OWN_MODULES[name]}"), name)
    else:
        cls = mo_class(name)
    for method, function in MO_METHODS.get(name, {}).items():
        setattr(cls, method, staticmethod(function))
    return cls


def __getattr__(name: str) -> Any:
    if not any(name in names for names in MO_OPS.values()):
        raise AttributeError(name)
    from converter.legacy.mo_ops.lowering import register

    register()
    return _class(name)
