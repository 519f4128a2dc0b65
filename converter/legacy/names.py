"""What a legacy Model Optimizer import resolves to: legacy module -> {name: target}.

Targets are `module:attribute`, or `op:Name` for a built-in op class (MO's names accepted, see
converter.legacy.ops.MO_OP_NAMES). Targets in a framework package (caffe, tf, mxnet, kaldi)
resolve only when that frontend exists. The data is written with the pre-2022 roots (`mo.`,
`extensions.`); `_derive` puts every module under the three roots (2022 moved both to
`openvino.tools.mo.`).
"""

from __future__ import annotations

__all__ = ["LEGACY_NAMES", "ROOTS", "legacy_modules"]

_G = "converter.graph.graph"
_L = "converter.legacy"
_SHAPES = f"{_L}.shapes"
_UTILS = f"{_L}.utils"
_CAFFE = "converter.front.caffe"
_TF = "converter.front.tf"
_KALDI = "converter.front.kaldi"


def _ops(*names: str) -> dict[str, str]:
    return {n: f"op:{n}" for n in names}


def _from(module: str, *names: str) -> dict[str, str]:
    return {n: f"{module}:{n}" for n in names}


LEGACY_NAMES: dict[str, dict[str, str]] = {
    # graph
    "mo.graph.graph": {
        **_from(_G, "Graph", "Node", "rename_nodes"), **_from(_UTILS, "rename_node")},
    "mo.graph.port": _from("converter.graph.port", "Port"),
    "mo.graph.connection": _from("converter.graph.port", "Connection"),
    "mo.graph.perm_inputs": _from(f"{_L}.ops", "PermuteInputs"),
    # ops and extractors
    "mo.ops.op": _from(f"{_L}.ops", "Op", "PermuteAttrs"),
    "mo.front.extractor": {
        "FrontExtractorOp": "converter.front.extractor:FrontExtractorOp",
        "CaffePythonFrontExtractorOp": f"{_CAFFE}.extractor:CaffePythonFrontExtractorOp",
        "MXNetCustomFrontExtractorOp": "converter.front.mxnet.custom:MXNetCustomFrontExtractorOp",
    },
    "mo.front.caffe.extractor": _from(_UTILS, "register_caffe_python_extractor"),
    # transformations and their anchors
    "mo.utils.replacement_pattern": _from("converter.passes", "ReplacementPattern"),
    "mo.front.common.replacement": _from(
        f"{_L}.replacement", "FrontReplacementOp", "FrontReplacementPattern",
        "FrontReplacementSubgraph"),
    "mo.middle.replacement": _from(f"{_L}.replacement", "MiddleReplacementPattern"),
    "mo.back.replacement": _from(f"{_L}.replacement", "BackReplacementPattern"),
    "extensions.front.pass_separator": _from(
        "converter.front.replacement", "FrontStart", "FrontFinish"),
    "extensions.middle.pass_separator": {
        **_from("converter.middle.replacement", "MiddleStart", "MiddleFinish"),
        **_from(f"{_L}.replacement", "PreMiddleStart", "PostMiddleStart"),
    },
    "extensions.back.pass_separator": _from(
        "converter.back.replacement", "BackStart", "BackFinish"),
    # shapes and partial inference
    "mo.front.common.partial_infer.utils": {
        **_from(_SHAPES, "shape_array", "int64_array", "float32_array", "mo_array",
                "dynamic_dimension", "dynamic_dimension_value", "is_fully_defined",
                "strict_compare_tensors",
                "undefined_shape_of_rank", "compatible_dims", "compatible_shapes", "shape_delete",
                "shape_insert", "unmask_shape", "mark_input_bins"),
        "convert_tf_padding_to_str": "converter.front.tf.attrs:convert_tf_padding_to_str",
    },
    "mo.front.common.partial_infer.elemental": _from(
        _SHAPES, "copy_shape_infer", "single_output_infer", "copy_value"),
    "mo.front.common.partial_infer.eltwise": _from(_SHAPES, "eltwise_infer"),
    "mo.front.common.layout": _from(_UTILS, "get_batch_dim", "get_features_dim", "get_height_dim",
                                    "get_width_dim"),
    # framework attribute helpers
    "mo.front.onnx.extractors.utils": {
        **_from("converter.front.onnx.attrs", "onnx_attr", "onnx_node_has_attr"),
        **_from(_UTILS, "get_onnx_opset_version", "onnx_get_num_outputs", "get_onnx_autopad"),
    },
    "mo.front.caffe.collect_attributes": _from(
        f"{_CAFFE}.attrs", "collect_attributes", "merge_attrs"),
    "mo.front.caffe.extractors.utils": _from(f"{_CAFFE}.attrs", "weights_biases", "embed_input"),
    "mo.front.tf.extractors.utils": _from(
        "converter.front.tf.attrs", "tf_dtype_extractor", "tf_tensor_shape", "tf_int_list",
        "tf_tensor_content", "tf_data_format_spatial", "tf_data_format_channel",
        "tf_data_format_batch", "collect_tf_attrs", "get_tf_node_port"),
    "mo.front.tf.replacement": _from(
        "converter.front.tf.replacement", "FrontReplacementFromConfigFileGeneral",
        "FrontReplacementFromConfigFileSubGraph", "FrontReplacementFromConfigFileOp"),
    "mo.front.subgraph_matcher": _from("converter.front.tf.replacement", "SubgraphMatch"),
    "mo.utils.custom_replacement_config": _from(
        f"{_TF}.replacement", "CustomReplacementDescriptor"),
    "mo.front.kaldi.loader.utils": _from(
        f"{_KALDI}.mo_readers", "collect_until_token", "collect_until_token_and_read",
        "collect_until_whitespace", "find_next_tag", "get_bool", "get_uint16", "get_uint32",
        "get_uint64", "read_binary_bool_token", "read_binary_float_token",
        "read_binary_integer32_token", "read_binary_integer64_token", "read_blob",
        "read_placeholder", "read_string", "read_token_value"),
    "mo.front.kaldi.utils": _from(
        f"{_KALDI}.mo_readers", "read_binary_matrix", "read_binary_vector",
        "read_learning_info"),
    "mo.front.mxnet.extractors.utils": _from(
        "converter.front.mxnet.attrs", "get_mxnet_layer_attrs"),
    # errors
    "mo.utils.error": _from(_UTILS, "Error", "FrameworkError", "InternalError"),
    "mo.utils.utils": _from(_UTILS, "refer_to_faq_msg"),
    # built-in ops under their MO modules and names
    "mo.ops.const": _ops("Const"),
    "mo.ops.result": _ops("Result"),
    "mo.ops.parameter": _ops("Parameter"),
    "extensions.ops.parameter": _ops("Parameter"),
    "mo.ops.reshape": _ops("Reshape"),
    "mo.ops.concat": _ops("Concat"),
    "mo.ops.shape": _ops("Shape"),
    "mo.ops.squeeze": _ops("Squeeze"),
    "mo.ops.unsqueeze": _ops("Unsqueeze"),
    "mo.ops.clamp": _ops("Clamp", "AttributedClamp"),
    "mo.ops.softmax": _ops("Softmax", "LogSoftmax"),
    "extensions.ops.transpose": _ops("Transpose"),
    "extensions.ops.MatMul": _ops("MatMul"),
    "extensions.ops.gather": _ops("Gather"),
    "extensions.ops.Cast": _from(f"{_L}.ops", "Cast"),
    "extensions.ops.ReduceOps": _ops(
        "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2"),
    "extensions.ops.elementwise": _ops(
        "Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum", "Equal", "NotEqual", "Less",
        "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalXor", "FloorMod",
        "Mod", "Negative", "SquaredDifference", "Round", "Sqrt"),
    "extensions.ops.activation_ops": _ops(
        "Sigmoid", "Tanh", "ReLU", "Elu", "Exp", "Log", "Erf", "Floor", "Ceiling", "Abs", "Sign",
        "Sin", "Sinh", "Asin", "Asinh", "Cos", "Cosh", "Acos", "Acosh", "Tan", "Atan", "Atanh",
        "SoftPlus",
        "Mish", "HSwish", "HSigmoid", "Swish", "SoftSign", "LogicalNot", "Selu", "Gelu", "GeLU"),
}

ROOTS = ("mo", "extensions", "openvino.tools.mo")


def _derive() -> dict[str, dict[str, str]]:
    """Each module under all three roots. The path below the root is unique across `mo.` and
    `extensions.` (2022 merged both into `openvino.tools.mo.`), so accepting every path under
    every root adds no conflict."""
    out: dict[str, dict[str, str]] = {}
    for module, names in LEGACY_NAMES.items():
        below = module.split(".", 1)[1]
        for root in ROOTS:
            out.setdefault(f"{root}.{below}", {}).update(names)
    return out


_ALL = _derive()


def legacy_modules() -> dict[str, dict[str, str]]:
    """Every legacy module under the three roots -> {name: target}."""
    return _ALL
