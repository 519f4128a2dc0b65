"""MO 2023.3's own transformation classes that extension code names, with where each ran.

Legacy passes name MO's transformations in run_after()/run_before() to find their place. Each
name here resolves to a stand-in anchor (converter.legacy.mo_passes) at the same position:
`"after ... | before ..."` lists the classes MO itself ordered it after and before (the
transitive reduction of MO's declared order over these classes, MO's phase separators,
extgen's layout change and extgen's FakeOutputResolver, which does what MO's did:
converter.legacy.fake_output_resolver). MO changed layout in several steps after
PostMiddleStart; extgen does it in one middle pass there, LayoutChangeNHWCtoNCHW, so MO's layout
steps sit around that pass.
Modules are below the legacy root (`front.div` is `mo.front.div`, `extensions.front.div`, ...).
"""

from __future__ import annotations

__all__ = ["MO_PASSES"]

MO_PASSES: dict[str, dict[str, str]] = {
    "back.ConvolutionNormalizer": {
        "ConvolutionNormalizer": "BackStart | BackFinish",
        "ConvolutionWithGroupsResolver": "ApplyReverseChannels |",
        "DeconvolutionNormalizer": "ApplyReverseChannels |",
    },
    "back.CropToStridedSlice": {"CropToStridedSlice": "BackStart |"},
    "back.ForceStrictPrecision": {
        "ForceStrictPrecision": "CropToStridedSlice ReshapeMutation | BackFinish",
    },
    "back.FuseTransposesSequence": {"FuseTransposesSequence": "BackStart |"},
    "back.InterpolateReshape": {
        "InterpolateConcat": "BackStart |",
        "InterpolateReshapeWA": "InterpolateConcat | BackFinish",
    },
    "back.MarkNodesWithShapeValues": {"MarkNodesWithShapeValues": "BackFinish |"},
    "back.MatMulNormalizer": {"SmartReshape_HC_Reshape_MatMul": "BackStart |"},
    "back.MaxPool": {"MaxPool": "FakeOutputResolver | BackFinish"},
    "back.OptimizeTransposeReshapeSequence": {
        "OptimizeTransposeReshapeSequence": "FuseTransposesSequence |",
    },
    "back.PackBinaryWeights": {"PackBinaryWeights": "BackStart | BackFinish"},
    "back.ReduceMerge": {"ReduceMerge": "TransposeReduce | BackFinish"},
    "back.RemoveUselessConvert": {"RemoveUselessConvert": "BackStart | BackFinish"},
    "back.ReshapeMutation": {
        "ReshapeMutation": (
            "ConvolutionWithGroupsResolver DeconvolutionNormalizer "
            "OptimizeTransposeReshapeSequence "
            "| "),
    },
    "back.ResultNormalizer": {"ResultNormalizer": "BackStart | BackFinish"},
    "back.ResultRename": {"ResultRename": "BackStart | BackFinish"},
    "back.ReverseInputChannels": {"ApplyReverseChannels": "BackStart |"},
    "back.ShapeOfConstFolding": {
        "ShapeOfConstFolding": (
            "ConvolutionWithGroupsResolver SmartReshape_HC_Reshape_MatMul "
            "| BackFinish"),
    },
    "back.SpecialNodesFinalization": {
        "CreateConstNodesReplacement": "RemoveConstOps |",
        "NormalizeTI": "BackStart | BackFinish",
        "RemoveConstOps": "BackFinish |",
    },
    "back.StridedSliceMasksNormalizer": {
        "StridedSliceMasksNormalizer": (
            "ConvolutionWithGroupsResolver CropToStridedSlice DeconvolutionNormalizer "
            "| BackFinish"),
    },
    "back.TopKNormalizer": {"TopKNormalizer": "BackStart | BackFinish"},
    "back.TransposeReduceFusing": {"TransposeReduce": "FuseTransposesSequence |"},
    "back.blob_normalizer": {"BlobNormalizer": "BackFinish |"},
    "back.insert_compatibility_l2normalization": {
        "CompatibilityL2NormalizationPattern": "BackStart | BackFinish",
    },
    "back.op_versioning": {"OpVersioning": "BackStart | BackFinish"},
    "front.AttributedClampNormalizer": {"AttributedClampNormalizer": "FrontStart | FrontFinish"},
    "front.AttributedRollToRoll": {"AttributedRollToRoll": "FrontStart | FrontFinish"},
    "front.ExpandDimsToUnsqueeze": {"ExpandDimsToUnsqueeze": "Pack | FrontFinish"},
    "front.FakeQuantWithMinMaxVars": {"FakeQuantWithMinMaxVarsToQuantize": "FrontStart |"},
    "front.InterpolateNormalizer": {"InterpolateNormalizer": "FrontStart | FrontFinish"},
    "front.MatMul_normalizer": {
        "FullyConnectedDecomposer": "FrontStart ReplaceLstmNonLinearityPattern | FrontFinish",
    },
    "front.MoveEmbeddedInputsToInputs": {"MoveEmbeddedInputsToInputs": "RestorePorts | FrontStart"},
    "front.Pack": {
        "Pack": "FakeQuantWithMinMaxVarsToQuantize NearestNeighborUpsampling RollRealImagPack |",
    },
    "front.PowerToEltwises": {"PowerToEltwises": "FrontStart |"},
    "front.TransposeOrderNormalizer": {
        "TransposeOrderNormalizer": "FakeQuantWithMinMaxVarsToQuantize |",
    },
    "front.create_tensor_nodes": {"CreateTensorNodes": "FrontFinish |"},
    "front.div": {"Div": "FrontStart | FrontFinish"},
    "front.eltwise_n": {"EltwiseNReplacement": "FrontStart | FrontFinish"},
    "front.flatten_to_reshape": {
        "FlattenToReshape": "SsdPatternDetectionOutputReplacer SsdPatternRemoveFlatten |",
    },
    "front.freeze_placeholder_value": {"FreezePlaceholderValue": "RestorePorts | FrontStart"},
    "front.input_cut": {"InputCut": "OutputCut |"},
    "front.kaldi.add_reshape_transpose_around_conv_pool": {
        "AddReshapeTransposeAroundConvPool": "SplitRecurrentMemoryOffset | FrontFinish",
    },
    "front.kaldi.memory_offset_adjustment": {"MemoryOffsetAdjustment": "FrontStart |"},
    "front.kaldi.replace_lstm_nonlinearity": {"ReplaceLstmNonLinearityPattern": "RestorePorts |"},
    "front.kaldi.split_recurrent_memoryoffset": {
        "SplitRecurrentMemoryOffset": "MemoryOffsetAdjustment |",
    },
    "front.mxnet.MXRepeatReplacer": {"MXRepeatReplacer": "FrontStart |"},
    "front.mxnet.eltwise_scalar_replacers": {"MulScalarFrontReplacer": "FrontStart |"},
    "front.mxnet.mx_reshape_to_reshape": {"MXReshapeToReshape": "FrontStart | FrontFinish"},
    "front.mxnet.ssd_detection_output_replacer": {
        "SsdPatternDetectionOutputReplacer": "AttributedSplitToSplit MulScalarFrontReplacer |",
    },
    "front.mxnet.ssd_pattern_flatten_softmax_activation": {
        "SsdPatternFlattenSoftmaxActivation": "SsdPatternRemoveTranspose |",
    },
    "front.mxnet.ssd_pattern_remove_flatten": {
        "SsdPatternRemoveFlatten": "SsdPatternFlattenSoftmaxActivation |",
    },
    "front.mxnet.ssd_pattern_remove_reshape": {
        "SsdPatternRemoveReshape": "SsdPatternRemoveFlatten | FrontFinish",
    },
    "front.mxnet.ssd_pattern_remove_transpose": {"SsdPatternRemoveTranspose": "FrontStart |"},
    "front.no_op_eraser": {"NoOpEraser": "FrontStart | FrontFinish"},
    "front.non_max_suppression_normalize": {
        "NonMaxSuppressionNormalize": "FrontStart | FrontFinish",
    },
    "front.onnx.flattenONNX_to_reshape": {
        "FlattenONNXToReshape": "SoftmaxONNXFrontReplacer | FrontFinish",
    },
    "front.onnx.softmaxONNX_to_softmax": {"SoftmaxONNXFrontReplacer": "FrontStart |"},
    "front.output_cut": {"OutputCut": "UserDataRepack |"},
    "front.override_batch": {"OverrideBatch": "FrontStart | FrontFinish"},
    "front.rank_decomposer": {
        "RankDecomposer": "BatchToSpaceNormalizer FlattenToReshape MXRepeatReplacer | FrontFinish",
    },
    "front.reduce_axis_normalizer": {"ReduceAxisNormalizer": "FrontStart | FrontFinish"},
    "front.restore_ports": {"RestorePorts": "InputCut |"},
    "front.split_normalizer": {
        "AttributedSplitToSplit": "SqueezeAxis |",
        "SplitInputsReconnect": "FrontStart | FrontFinish",
        "SqueezeAxis": "FakeQuantWithMinMaxVarsToQuantize |",
    },
    "front.sub": {"Sub": "FrontStart | FrontFinish"},
    "front.tf.CTCGreedyDecoderReplacement": {
        "CTCGreedyDecoderReplacement": "CTCLossReplacement | FrontFinish",
    },
    "front.tf.CTCLossReplacement": {"CTCLossReplacement": "FrontStart |"},
    "front.tf.ComplexAbsAfterComplex": {"ComplexAbsAfterComplex": "FrontStart | FrontFinish"},
    "front.tf.CropAndResizeReplacement": {
        "CropAndResizeReplacement": "FakeQuantWithMinMaxVarsToQuantize | FrontFinish",
    },
    "front.tf.MapFNTransformation": {
        "MapFNInputSlicing": "FakeQuantWithMinMaxVarsToQuantize |",
        "MapFNOutputConcatenation": "FakeQuantWithMinMaxVarsToQuantize |",
        "TensorListOutputConcatenation": "FakeQuantWithMinMaxVarsToQuantize |",
    },
    "front.tf.RollRealImagPack": {"RollRealImagPack": "FrontStart |"},
    "front.tf.TFFFTToDFT": {"TFFFTToDFT": "RollRealImagPack | FrontFinish"},
    "front.tf.TFSliceToSlice": {
        "TFSliceToSliceReplacer": "FakeQuantWithMinMaxVarsToQuantize | FrontFinish",
    },
    "front.tf.WhileNormalize": {
        "WhileNormalize": (
            "MapFNInputSlicing MapFNOutputConcatenation TensorListOutputConcatenation "
            "| FrontFinish"),
    },
    "front.tf.embedding_segments_operation_fusing": {
        "EmbeddingSegmentsOperationMultipleFeaturesFusing": "FrontStart | FrontFinish",
        "EmbeddingSegmentsOperationSingleFeatureFusing": "FrontStart | FrontFinish",
    },
    "front.tf.mvn": {"MVNReplacer": "FrontStart | FrontFinish"},
    "front.tf.mvn_unrolled": {"MVNUnrolled": "PowerToEltwises | FrontFinish"},
    "front.tf.nearest_neighbor_upsampling": {"NearestNeighborUpsampling": "FrontStart |"},
    "front.tf.pad_tf_to_pad": {"PadTFToPad": "TransposeOrderNormalizer | FrontFinish"},
    "front.tf.space_to_batch": {"BatchToSpaceNormalizer": "FrontStart |"},
    "front.user_data_repack": {"UserDataRepack": "LoadFinish |"},
    # MO ran these two from inside Fusing (they declare no order of their own)
    "load.loader": {"LoadFinish": "| UserDataRepack"},
    "middle.AddFakeQuantizeFuse": {"AddFakeQuantizeFuse": "Fusing | PostMiddleStart"},
    "middle.MulFakeQuantizeFuse": {"MulFakeQuantizeFuse": "Fusing | PostMiddleStart"},
    "middle.AddIsCyclicAttribute": {"AddIsCyclicAttribute": "DeleteControlFlowEdges |"},
    "middle.ApplyNHWCtoNCHWpermutation": {
        "ApplyNHWCtoNCHWpermutation": "LayoutChangeForConstantShapePaths | LayoutChangeNHWCtoNCHW",
    },
    "middle.ApplyPermutations": {
        "ApplyPermutation": "PreserveRuntimeInfo LayoutChangeNHWCtoNCHW |",
    },
    "middle.BinarizeWeightsM1P1": {"BinarizeWeightsM1P1": "FakeQuantizeFuse |"},
    "middle.BlockLSTMtoLSTMSequence": {"BlockLSTMtoLSTMSequence": "RNNSequenceNormalize |"},
    "middle.CheckForCycle": {"CheckForCycle": "TensorIteratorMerge |"},
    "middle.ConstSwitchResolver": {"ConstSwitchEraser": "MiddleStart | MiddleFinish"},
    "middle.DecomposeBidirectionalRNNSequence": {
        "DecomposeBidirectionalRNNSequence": "MXNetRNNSequenceNormalize ONNXRNNSequenceNormalize |",
    },
    "middle.DeleteControlFlowEdges": {"DeleteControlFlowEdges": "PartialInfer |"},
    "middle.DeleteNotExecutable": {"DeleteNotExecutable": "BinarizeWeightsM1P1 ConditionChecks |"},
    "middle.EltwiseChecker": {"EltwiseChecker": "Eltwise1DInputReshape | MiddleFinish"},
    "middle.EltwiseInputReshape": {"Eltwise1DInputReshape": "MiddleStart |"},
    "middle.FuseReshapesSequence": {"FuseReshapesSequence": "MiddleFinish |"},
    "middle.InputCut": {"MiddleInputCut": "PreMiddleStart | MiddleStart"},
    "middle.InsertLayoutPropagationTransposes": {
        "InsertLayoutPropagationTranspose": (
            "MarkSubGraphsWithCorrectLayout "
            "| LayoutChangeNHWCtoNCHW"),
    },
    "middle.InsertSelect": {"AddSelectBeforeMemoryNodePattern": "MergeNeighborSplicePattern |"},
    "middle.InterpolateSequenceToInterpolate": {
        "InterpolateSequenceToInterpolate": "MiddleStart |",
    },
    "middle.LSTMRNNSequenceToTensorIterator": {"LSTMToTensorIterator": "BlockLSTMtoLSTMSequence |"},
    "middle.LayoutChangeForConstantShapePaths": {
        "LayoutChangeForConstantShapePaths": (
            "InsertLayoutPropagationTranspose "
            "| LayoutChangeNHWCtoNCHW"),
    },
    "middle.LeakyReluPattern": {"LeakyReLUFusion": "Fusing | PostMiddleStart"},
    "middle.MXNetRNNSequenceNormalize": {
        "MXNetRNNSequenceNormalize": "MXNetSplitLayersToRNNSequence |",
    },
    "middle.MXNetSplitMultiLayers": {"MXNetSplitLayersToRNNSequence": "MiddleStart |"},
    "middle.MarkSubgraphsWithCorrectLayout": {
        "MarkSubGraphsWithCorrectLayout": "PostMiddleStart | LayoutChangeNHWCtoNCHW",
    },
    "middle.MergeNodesPermutations": {
        "MergeNodesPermutations": "ApplyNHWCtoNCHWpermutation LayoutChangeNHWCtoNCHW |",
    },
    "middle.ONNXRNNSequenceNormalize": {"ONNXRNNSequenceNormalize": "MiddleStart |"},
    "middle.PartialInfer": {"PartialInfer": "|"},
    "middle.PreserveRuntimeInfo": {
        "PreserveRuntimeInfo": "MergeNodesPermutations LayoutChangeNHWCtoNCHW |",
    },
    "middle.RNNSequenceNormalizeToIE": {
        "RNNSequenceNormalize": "DecomposeBidirectionalRNNSequence |",
    },
    "middle.RemoveDuplicationMemory": {
        "MergeNeighborSplicePattern": "RemoveMemoryDuplicationPattern |",
        "RemoveMemoryDuplicationPattern": (
            "ReplaceMemoryOffsetNodePattern ReplaceMemoryOffsetWithMemoryNodePattern "
            "| "),
    },
    "middle.RemoveRedundantReshapes": {
        "RemoveRedundantReshapes": "FuseReshapesSequence Fusing | PostMiddleStart",
    },
    "middle.ReplaceMemoryOffsetWithSplice": {
        "ReplaceMemoryOffsetNodePattern": "SplitTdnnMemoryOffset |",
        "ReplaceMemoryOffsetWithMemoryNodePattern": "SplitTdnnMemoryOffset |",
    },
    "middle.ReplaceSpliceNodePattern": {
        "ReplaceSpliceNodePattern": "AddSelectBeforeMemoryNodePattern | MiddleFinish",
    },
    "middle.SharedWeightsDuplication": {
        "SharedWeightsDuplication": "CheckForCycle | PreMiddleStart",
    },
    "middle.SliceConverter": {"ConvertSlice": "MiddleStart |"},
    "middle.StridedSliceNormalizer": {"StridedSliceNormalizer": "ConvertSlice | MiddleFinish"},
    "middle.SwapAxesMiddleReplacer": {"SwapAxisMiddleReplacer": "MiddleStart |"},
    "middle.TF_lstm_cell_to_generic": {"TensorFlowLSTMtoGeneric": "MiddleStart |"},
    "middle.TensorIteratorBackEdge": {"BackEdgesMatching": "DynamicDecoderConditionMatcher |"},
    "middle.TensorIteratorCondition": {
        "DynamicDecoderConditionMatcher": "SimpleConditionMatcher |",
        "LoopConditionMatcher": "SmartInputMatcher |",
        "SimpleConditionMatcher": "LoopConditionMatcher |",
    },
    "middle.TensorIteratorConditionChecker": {"ConditionChecks": "BackEdgesMatching |"},
    "middle.TensorIteratorInput": {"SmartInputMatcher": "AddIsCyclicAttribute |"},
    "middle.TensorIteratorMerge": {"TensorIteratorMerge": "DeleteNotExecutable |"},
    "middle.UpsampleToResample": {
        "UpsampleToResample": "InterpolateSequenceToInterpolate | MiddleFinish",
    },
    "middle.fusings": {"Fusing": "MiddleFinish |"},
    "middle.permute_tensor_iterator": {
        "TransposeTensorIteratorLSTM": (
            "LSTMToTensorIterator SwapAxisMiddleReplacer TensorFlowLSTMtoGeneric "
            "| "),
    },
    "middle.quantize_dequantize_linear_resolver": {
        "QuantizeDequantizeLinearResolver": "MarkNodesToFuseUpToFakeQuantize |",
    },
    "middle.quantize_fuses": {
        "FakeQuantizeFuse": "QuantizeLinearResolver |",
        "MarkNodesToFuseUpToFakeQuantize": "DeleteControlFlowEdges |",
    },
    "middle.quantize_linear_resolver": {
        "QuantizeLinearResolver": "QuantizeDequantizeLinearResolver |",
    },
    "middle.reverse_tensor_iterator": {
        "ReverseTensorIteratorLSTM": "TransposeTensorIteratorLSTM | MiddleFinish",
    },
    "middle.split_tdnn_memoryoffset": {"SplitTdnnMemoryOffset": "MiddleStart |"},
}
