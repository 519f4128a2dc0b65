"""MO op classes that only stood for a framework op until one of MO's passes replaced them (no
IR type): they build MO's node for that pass; left in place, inference says which pass to copy
(or that MO could not convert the op either)."""

from __future__ import annotations

from typing import Any

from converter.errors import ShapeInferenceError
from converter.graph.graph import Graph, Node
from converter.legacy.mo_ops.mo_nodes import MO_NODES, node_facts
from converter.legacy.ops import Op

__all__ = ["FRONT_ONLY", "front_only_class"]

_BODIES = "bodies"

# MO class -> (MO's op name, the MO pass that replaces it; None: MO never replaced it)
FRONT_ONLY: dict[str, tuple[str, str | None]] = {
    # MO's body graphs and port maps; extgen's Loop-5/If-8/TensorIterator-1 hold bodies in
    # another form, built by its ONNX and TF frontends
    **{body: (body, _BODIES) for body in ("Loop", "If", "TensorIterator")},
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
    "MemoryOffset": ("MemoryOffset", "middle/ReplaceMemoryOffsetWithSplice.py"),
    "ArgMaxOp": ("ArgMax", "middle/ArgOpsToTopK.py"),
    "ArgMinOp": ("ArgMin", "middle/ArgOpsToTopK.py"),
    "AttributedRandomUniform": ("AttributedRandomUniform",
                                "front/AttributedRandomUniformToRandomUniform.py"),
    "Reverse": ("Reverse", "middle/ReverseV2ToReverseSequence.py"),
    "SliceLike": ("slice_like", "middle/SliceLikeToStridedSlice.py"),
    "Splice": ("Splice", "middle/ReplaceSpliceNodePattern.py"),
    "BlockLSTM": ("BlockLSTM", "middle/BlockLSTMtoLSTMSequence.py"),
    "GRUBlockCell": ("GRUBlockCell", "front/tf/GRUBlockCellReplacement.py"),
    "TensorArray": ("TensorArrayV3", "middle/TensorIteratorInput.py"),
    "TensorArrayGather": ("TensorArrayGatherV3", "middle/TensorIteratorOutput.py"),
    "ArangeLikeOp": ("arange_like", "front/mxnet/arange_like_replacer.py"),
    "BoxNms": ("_contrib_box_nms", "front/mxnet/ssd_detection_output_replacer.py"),
    "MXNetCumSum": ("MXNetCumSum", "front/mxnet/cumsum.py"),
    "QuantizeLinear": ("QuantizeLinear", "middle/quantize_linear_resolver.py"),
    "DequantizeLinear": ("DequantizeLinear", "middle/dequantize_linear_resolver.py"),
    "DropoutMask": ("dropoutmaskcomponent", "front/kaldi/replace_dropoutmask.py"),
    "LstmNonLinearity": ("LstmNonLinearity", "front/kaldi/replace_lstm_nonlinearity.py"),
    "TdnnComponent": ("tdnncomponent", "front/kaldi/tdnn_component_replacer.py"),
    "RestrictedAttentionComponent": ("restrictedattentioncomponent",
                                     "front/kaldi/restrictedattentioncomponent_replacer.py"),
    "PNormOp": ("pnorm", "middle/ReplacePNorm.py"),
    "EmbeddingSegmentsMean": ("EmbeddingSegmentsMean",
                              "front/tf/embedding_segments_mean_decomposition.py"),
    "SparseSegmentSum": ("SparseSegmentSum", "front/tf/embedding_segments_operation_fusing.py"),
    "SparseSegmentMean": ("SparseSegmentMean", "front/tf/embedding_segments_operation_fusing.py"),
    "SparseFillEmptyRows": ("SparseFillEmptyRows",
                            "front/tf/embedding_segments_operation_fusing.py"),
    "Unique": ("Unique", "front/tf/embedding_segments_operation_fusing.py"),
    "MXEye": ("MXEye", "front/mxnet/eye_mx_to_eye.py"),
    "TFEye": ("TFEye", "front/tf/eye_tf_to_eye.py"),
    "GroupNorm": ("GroupNorm", "middle/GroupNorm.py"),
    "LayerNorm": ("LayerNorm", "middle/layer_normalization.py"),
    "MXReshape": ("MXReshape", "front/mxnet/mx_reshape_to_reshape.py"),
    "MXSlice": ("MXSlice", "front/mxnet/slice_replacers.py"),
    "TFPad": ("TFPad", "front/tf/pad_tf_to_pad.py"),
    "TFScatterND": ("TFScatterND", "front/tf/TFScatterNDDecomposition.py"),
    "PoolingV2": ("PoolingV2", "middle/PoolV2ToAttributedPool.py"),
    "PackOp": ("Pack", "front/Pack.py"),
    "SwapAxis": ("SwapAxis", "middle/SwapAxesMiddleReplacer.py"),
    "Complex": ("Complex", "middle/SSliceComplex.py"),
    "MXFFT": ("MXFFT", "front/mxnet/MXFFTToDFT.py"),
    "TFFFT": ("TFFFT", "front/tf/TFFFTToDFT.py"),
    "ONNXResize11Op": ("ONNXResize11", "middle/ONNXResize11ToInterpolate.py"),
    "UpsampleOp": ("Upsample", "middle/UpsampleToResample.py"),
    **{cell: (cell, "middle/RNNSequenceNormalizeToIE.py") for cell in ("RNN", "GRU", "LSTM")},
    "GemmONNX": ("Gemm", "front/MatMul_normalizer.py"),
    "ReverseChannels": ("ReverseChannels", "back/ReverseInputChannels.py"),
    "SparseSegmentSqrtN": ("SparseSegmentSqrtN", None),
    **{part: (part, "middle/TensorIteratorMerge.py") for part in (
        "TensorIteratorInput", "TensorIteratorOutput", "TensorIteratorCondition",
        "TensorIteratorBackEdge")},
    "EltwiseNin1": ("EltwiseNin1", "front/kaldi/replace_eltwise_nin1.py"),
    "TimeHeightConvolutionComponent": ("timeheightconvolutioncomponent",
                                       "front/kaldi/replace_timeheightconvolution.py"),
    "LookupTableInsert": ("LookupTableInsert", None),
}


def front_only_class(name: str) -> type:
    mo_op, replaced_by = FRONT_ONLY[name]

    def __init__(self, graph: Graph, attrs1: dict | None = None, attrs2: dict | None = None):
        given, facts = {**(attrs1 or {}), **(attrs2 or {})}, MO_NODES.get(name, {})
        Op.__init__(self, graph, {"op": mo_op, "type": None, "infer": infer,
                                  "in_ports_count": None, "out_ports_count": 1,
                                  **facts.get("attrs", {})}, given)
        self.attrs.update({k: v for k, v in node_facts(facts).items() if k not in given})

    def infer(node: Node) -> None:
        what = f"node '{node.soft_get('name', node.id)}' is MO's {name}"
        if replaced_by == _BODIES:
            msg = (f"{what} with MO's body graph, which extgen cannot take; let extgen's "
                   "ONNX or TensorFlow frontend build the loop, or build opset Loop-5/If-8")
        elif replaced_by:
            msg = (f"{what}, which MO's pass {replaced_by} replaces; copy that pass into your "
                   "extension folder")
        else:
            msg = f"{what}, which MO could not convert either; replace it in a front pass"
        raise ShapeInferenceError(msg)

    attrs: dict[str, Any] = {"__init__": __init__, "__module__": __name__, "__qualname__": name,
                             "enabled": False,
                             "__doc__": f"MO's {name} (stands for MO's node only)."}
    cls = type(name, (Op,), attrs)
    cls.op = mo_op  # MO's name for its nodes, set after creation: registering it would shadow
    return cls  # the built-in op of the same name (Unique, Loop, If, ...)
