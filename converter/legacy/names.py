"""What a legacy Model Optimizer import resolves to: legacy module -> {name: target}.

Targets are `module:attribute`, or `op:Name` for a built-in op class (MO's names accepted, see
converter.legacy.ops.MO_OP_NAMES; where MO's node differed, a class building MO's node, see
converter.legacy.mo_ops.renamed.mo_builtin). Targets in a framework package (caffe, tf, mxnet,
kaldi) resolve only when that frontend exists. The data is written with the pre-2022 roots (`mo.`,
`extensions.`); `_derive` puts every module under the three roots (2022 moved both to
`openvino.tools.mo.`).
"""

from __future__ import annotations

from converter.legacy.mo_ops import MO_OPS
from converter.legacy.mo_pass_order import MO_PASSES
from converter.legacy.unimplemented import UNIMPLEMENTED

__all__ = ["HELPER_NAMES", "INTERNAL_NAMES", "LEGACY_NAMES", "MO_CLASS_NAMES", "ROOTS",
           "UNIMPLEMENTED_NAMES", "legacy_modules"]

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
        **_from(_G, "Graph", "Node"), **_from(_UTILS, "rename_node", "rename_nodes")},
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
    "extensions.back.FakeOutputResolver": _from(  # runs, as MO's did (not a stand-in)
        f"{_L}.fake_output_resolver", "FakeOutputResolver"),
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
    "mo.front.kaldi.utils": {
        **_from(f"{_KALDI}.mo_readers", "read_binary_matrix", "read_binary_vector",
                "read_learning_info", "read_token_value"),
        **_from(f"{_L}.kaldi_helpers", "read_binary_vector_of_pairs")},
    "mo.front.kaldi.replace_lstm_node_pattern": _from(f"{_L}.kaldi_helpers", "unique_id"),
    "extensions.front.kaldi.extractors.fixed_affine_component_ext": _from(
        f"{_L}.kaldi_helpers", "FixedAffineComponentFrontExtractor"),
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
    "mo.ops.softmax": _ops("LogSoftmax"),
    "extensions.ops.transpose": _ops("Transpose"),
    "extensions.ops.MatMul": _ops("MatMul"),
    "extensions.ops.gather": _ops("Gather"),
    "extensions.ops.ReduceOps": _ops(
        "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2"),
    "extensions.ops.elementwise": _ops(
        "Add", "Maximum", "Minimum", "Equal", "NotEqual", "Less",
        "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalXor", "FloorMod",
        "Mod", "Negative", "SquaredDifference", "Round", "Sqrt"),
    "extensions.ops.activation_ops": _ops(
        "Sigmoid", "Tanh", "ReLU", "Elu", "Exp", "Log", "Erf", "Floor", "Ceiling", "Abs", "Sign",
        "Sin", "Sinh", "Asin", "Asinh", "Cos", "Cosh", "Acos", "Acosh", "Tan", "Atan", "Atanh",
        "SoftPlus",
        "Mish", "HSwish", "HSigmoid", "Swish", "SoftSign", "LogicalNot", "Selu", "Gelu", "GeLU"),
}

# -- MO's own classes (section owned by the MO-classes work; helpers go in HELPER_NAMES) ---------
# MO's op classes -> extgen's ops with MO's attributes (converter.legacy.mo_ops), and MO's
# transformations -> ordering stand-ins at their position (converter.legacy.mo_passes)
MO_CLASS_NAMES: dict[str, dict[str, str]] = {
    f"extensions.{module}": {**_from(f"{_L}.mo_ops", *MO_OPS.get(module, ())),
                             **_from(f"{_L}.mo_passes", *MO_PASSES.get(module, {}))}
    for module in {**MO_OPS, **MO_PASSES}
}

# -- helper functions extension code calls (graph building, shapes, types, attributes) --------
_BUILD = f"{_L}.build"
_SHAPE_NODES = f"{_L}.shape_nodes"
_TYPES = f"{_L}.datatypes"
_GRAPH_UTILS = f"{_L}.graph_utils"

HELPER_NAMES: dict[str, dict[str, str]] = {
    "mo.front.tf.graph_utils": _from(
        _BUILD, "create_op_with_const_inputs", "create_op_node_with_second_input",
        "add_constant_to_negative_values", "add_activation_function_after_node",
        "add_fake_background_loc"),
    "mo.graph.graph": {**_from(_BUILD, "add_opoutput"), **_from(_UTILS, "dict_includes"),
                       **_from(_GRAPH_UTILS, "merge_edge_props", "get_edge_attribute_between_nodes",
                               "set_edge_attribute_between_nodes")},
    "mo.middle.passes.eliminate": _from(_BUILD, "remove_op_node_with_data_node",
                                        "merge_data_nodes"),
    "extensions.middle.MulFakeQuantizeFuse": _from(_BUILD, "resolve_shared_inputs"),
    "mo.utils.type_utils": _from(_BUILD, "override_data_type_of_constant"),
    "mo.front.common.partial_infer.concat": _from(f"{_L}.infers", "concat_infer"),
    "extensions.ops.ReduceOps": _from(f"{_L}.infers", "reduce_map"),
    "mo.front.common.partial_infer.batch_norm": _from(f"{_L}.infers", "batch_norm_4_infer"),
    "mo.utils.custom_replacement_config": _from(_UTILS, "parse_custom_replacement_config_file"),
    "mo.utils.cli_parser": _from(_UTILS, "parse_transform"),
    "mo.middle.passes.fusing.helpers": {
        **_from(_BUILD, "get_value_in_port", "get_tensor_in_port", "get_next_operation"),
        **_from(_GRAPH_UTILS, "get_value_id")},
    "mo.middle.pattern_match": _from(_GRAPH_UTILS, "apply_pattern", "find_pattern_matches",
                                     "find_isomorphisms", "check_value", "inverse_dict",
                                     "for_graph_and_each_sub_graph_recursively"),
    "mo.utils.shape": _from(
        _SHAPE_NODES, "get_canonical_axis_index_node", "get_range_node_of_idxs",
        "get_shape_values_by_indices_node", "node_to_get_shape_value_of_indices",
        "get_shape_values_by_range_idxs", "node_to_get_batch_value",
        "node_to_get_features_dimension_value", "node_to_get_spatial_dimensions_value",
        "new_shape_node_from_shape_nodes", "get_shape_and_rank_nodes_by_port"),
    "mo.front.common.partial_infer.utils": {
        **_from(_SHAPES, "reverse_bypass_infer", "set_input_shapes", "float_array",
                "assign_dims_to_weights", "is_dynamic_slice", "tf_window_op_pad_infer"),
        **_from(f"{_L}.infers", "get_shape_from_slice")},
    "mo.utils.broadcasting": _from(
        f"{_L}.broadcasting", "bi_directional_shape_broadcasting", "bi_directional_broadcasting",
        "uni_directional_shape_broadcasting", "uni_directional_broadcasting",
        "explicit_shape_broadcasting", "explicit_broadcasting", "make_equal_rank"),
    "mo.utils.find_inputs": _from(_GRAPH_UTILS, "find_inputs", "find_outputs"),
    "mo.front.onnx.extractors.utils": _from(_UTILS, "get_backend_pad",
                                            "get_onnx_datatype_as_numpy"),
    "mo.front.common.register_custom_ops": _from(
        _UTILS, "check_for_duplicates", "add_or_override_extractor", "extension_op_extractor"),
    "mo.utils.logger": _from(_UTILS, "log"),
    "mo.middle.passes.infer": {
        "partial_infer": "converter.middle.partial_infer:partial_infer",
        "type_infer": "converter.middle.partial_infer:partial_infer"},
    "mo.utils.utils": {**_from(_SHAPES, "match_shapes", "symm_match_shapes"),
                       **_from(_UTILS, "deprecated_api")},
    "mo.utils.graph": _from(_GRAPH_UTILS, "bfs_search", "is_connected_component",
                            "sub_graph_between_nodes", "invert_sub_graph_between_nodes",
                            "nodes_matching_name_pattern", "backward_bfs_for_operation",
                            "clear_tensor_names_info"),
    "mo.utils.class_registration": _from(_GRAPH_UTILS, "ClassType"),
    "extensions.middle.InsertLayoutPropagationTransposes": _from(
        _GRAPH_UTILS, "mark_input_as_in_correct_layout", "mark_output_as_in_correct_layout",
        "is_input_data_in_correct_layout", "is_output_data_in_correct_layout",
        "mark_as_correct_data_layout"),
    "mo.front.common.layout": _from(_UTILS, "shape_for_layout", "get_depth_dim"),
    "mo.front.common.extractors.utils": _from(_UTILS, "layout_attrs"),
    "mo.front.extractor": _from(_UTILS, "bool_to_str", "attr_getter"),
    "mo.front.caffe.extractors.utils": {
        **_from(f"{_L}.caffe_helpers", "embed_input", "weights_biases", "input_as_const",
                "dim_to_shape", "get_list_from_container", "get_spatial_attr"),
        **_from(_UTILS, "get_canonical_axis_index")},
    "mo.middle.passes.convert_data_type": _from(
        _TYPES, "SUPPORTED_DATA_TYPES", "data_type_str_to_np", "data_type_str_to_precision",
        "data_type_str_to_destination_type", "np_data_type_to_precision",
        "np_data_type_to_destination_type", "destination_type_to_np_data_type",
        "precision_to_destination_type", "packed_U1", "packed_U4", "packed_I4"),
}

# -- MO's internals that extension code copied from MO's own passes imports -------------------
_EXTRACTOR = f"{_L}.extractor"

INTERNAL_NAMES: dict[str, dict[str, str]] = {
    "mo.front.extractor": {
        **_from(_EXTRACTOR, "add_input_ops", "add_output_ops", "add_attrs_props", "update_attrs",
                "update_ie_fields", "get_new_placeholder_name", "extract_node_attrs",
                "add_outputs_identity"),
        "create_tensor_nodes": f"{_L}.pass_run:create_tensor_nodes"},
    "mo.front.tf.custom_subgraph_call": _from(_GRAPH_UTILS, "skip_nodes_by_condition"),
    "mo.front.caffe.extractor": _from(f"{_L}.caffe_helpers", "node_pb_arg"),
    "extensions.front.caffe.conv_ext": _from(
        f"{_L}.caffe_helpers", "conv_set_params", "conv_create_attrs"),
    "mo.front.tf.common": _from(
        f"{_L}.tf_types", "tf_data_type_decode", "tf_data_type_cast", "bool_cast"),
    "mo.front.common.layout": _from(_UTILS, "get_dim_from_layout", "indices_mapping"),
    "mo.utils.runtime_info": _from(
        f"{_L}.runtime_info", "RTInfo", "RTInfoElement", "OldAPIMapOrder", "OldAPIMapElementType"),
    "mo.utils.utils": _from(_UTILS, "NamedAttrsClass", "array_to_str", "shrink_str_value",
                            "group_by_with_binary_predicate", "unique_by"),
    "mo.utils.version": {"get_version": "converter.version:installed_version"},
    "mo.middle.passes.fusing.helpers": _from(
        f"{_L}.fusing", "get_tensor_id", "common_bfs", "forward_bfs", "backward_bfs"),
    "mo.middle.pattern_match": _from(_GRAPH_UTILS, "check_node_usages_out_of_match"),
    "mo.graph.perm_inputs": _from(_GRAPH_UTILS, "get_node_with_permutation"),
    "mo.middle.passes.infer": _from(f"{_L}.infers", "copy_type_infer", "override_batch"),
    "mo.front.common.partial_infer.eltwise": _from(
        f"{_L}.infers", "bias_add_infer", "eltwise_reverse_infer"),
    "mo.front.common.partial_infer.utils": _from(
        _SHAPES, "clarify_partial_shape", "convert_deconv_tf_padding_to_str"),
    "mo.front.common.partial_infer.crop": _from(f"{_L}.infers", "crop_infer"),
    "mo.front.common.partial_infer.roipooling": _from(f"{_L}.infers", "roipooling_infer"),
    "extensions.ops.argmax": _from(f"{_L}.infers", "arg_ops_infer"),
    "extensions.ops.resize_factor_utils": _from(f"{_L}.infers", "factor_update"),
    "extensions.ops.RNN": _from(f"{_L}.infers", "rnn_infer"),
    "mo.middle.passes.convert_data_type": _from(_TYPES, "convert_blob"),
    "mo.pipeline.common": _from(_TYPES, "convert_const_node_value_type"),
    "mo.front.mxnet.extractors.utils": _from(
        f"{_L}.mxnet_helpers", "MXNET_DATA_TYPES", "get_json_layer_attrs",
        "mxnet_str_dtype_to_np", "scalar_ops_replacer"),
    "extensions.front.mxnet.conv_ext": _from(f"{_L}.mxnet_helpers", "DeconvFrontExtractor"),
    "mo.front.common.partial_infer.multi_box_prior": _from(
        f"{_L}.infers", "multi_box_prior_infer_mxnet"),
    "extensions.back.OptimizeTransposeReshapeSequence": _from(
        f"{_L}.infers", "set_reshape_new_output_shape"),
    "extensions.middle.TensorIteratorCondition": _from(_GRAPH_UTILS, "looking_for_op_in_list"),
    "extensions.middle.InsertSelect": _from(_GRAPH_UTILS, "check_inputs"),
    "extensions.middle.MakeKaldiConstReshapable": _from(
        _BUILD, "create_const_with_batch_from_input"),
    "mo.front.tf.graph_utils": _from(_BUILD, "add_convolution_to_swap_xy_coordinates"),
    "mo.front.common.custom_replacement_registry": _from(
        f"{_L}.registries", "CustomReplacementRegistry"),
    "mo.utils.unsupported_ops": _from(f"{_L}.registries", "UnsupportedOps"),
    # fill_graph_with_nodes, and what MO's graph module imported (`from mo.graph.graph import *`
    # code uses np, nx and log from it)
    "mo.graph.graph": {"Port": "converter.graph.port:Port", **_from(_UTILS, "Error", "log"),
                       **_from(_GRAPH_UTILS, "fill_graph_with_nodes", "np", "nx")},
    "mo.utils.graph": _from(_G, "Node", "Graph"),
}

# -- MO names extgen does not implement: they import, and refuse in one line when used -------
UNIMPLEMENTED_NAMES: dict[str, dict[str, str]] = {
    module: _from(f"{_L}.unimplemented", *names) for module, (_, names) in UNIMPLEMENTED.items()}

ROOTS = ("mo", "extensions", "openvino.tools.mo")


def _derive() -> dict[str, dict[str, str]]:
    """Each module under all three roots. The path below the root is unique across `mo.` and
    `extensions.` (2022 merged both into `openvino.tools.mo.`), so accepting every path under
    every root adds no conflict. A module in several tables gets the names of all."""
    out: dict[str, dict[str, str]] = {}
    # a later table wins a clash
    tables = (UNIMPLEMENTED_NAMES, MO_CLASS_NAMES, LEGACY_NAMES, HELPER_NAMES, INTERNAL_NAMES)
    for module, names in (item for table in tables for item in table.items()):
        below = module.split(".", 1)[1]
        for root in ROOTS:
            out.setdefault(f"{root}.{below}", {}).update(names)
    return out


_ALL = _derive()


def legacy_modules() -> dict[str, dict[str, str]]:
    """Every legacy module under the three roots -> {name: target}."""
    return _ALL
