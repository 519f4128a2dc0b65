"""MO's internals that extension code copied from MO's own passes imports (graph cuts, runtime
info, TF type tables, layout lookups, fusing searches, partial inference), imported through the
legacy roots and used as MO's passes use them."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import converter.ops  # noqa: F401  (registers the built-in ops)
from converter.graph.graph import Node
from converter.legacy import legacy_imports
from tests.graph.conftest import chain, op_node


def test_add_input_ops_cuts_at_an_input_port_and_an_output_port() -> None:
    with legacy_imports():
        from openvino.tools.mo.front.extractor import add_input_ops, get_new_placeholder_name

    graph = chain("front")
    new = add_input_ops(graph, {"tanh": [{"in": 0, "shape": np.array([2, -1])}],
                                "relu": [{"out": 0, "data_type": np.int32}]}, True)
    tanh_in, relu_out = (Node(graph, n) for n in new)
    assert tanh_in.name == get_new_placeholder_name("tanh", False, 0) == "tanh/placeholder_port_0"
    assert Node(graph, "tanh").in_port(0).get_source().node == tanh_in
    assert tanh_in.shape[0] == 2 and np.ma.is_masked(tanh_in.shape[1])
    assert relu_out.name == "relu/placeholder_out_port_0" and relu_out.element_type == np.int32
    assert Node(graph, "out").in_port(0).get_source().node == relu_out
    assert "x" not in graph and "relu" not in graph  # what fed only the cut is gone


def test_add_output_ops_puts_results_on_the_user_outputs_only() -> None:
    with legacy_imports():
        from mo.front.extractor import add_output_ops

    graph = chain("front")
    sinks = add_output_ops(graph, {"tanh": [{"in": 0}]})
    assert [s.in_port(0).get_source().node.id for s in sinks] == ["relu"]
    assert [r.id for r in graph.get_op_nodes(op="Result")] == [s.id for s in sinks]
    every = add_output_ops(chain("front"), None)
    assert sorted(s.in_port(0).get_source().node.id for s in every) == ["tanh"]


def test_extractor_attribute_lists() -> None:
    with legacy_imports():
        from mo.front.extractor import add_attrs_props, update_attrs, update_ie_fields

    attrs = add_attrs_props({"dim_attrs": ["axis", "mine"]})
    assert sorted(attrs["dim_attrs"]) == ["axis", "batch_dims", "channel_dims", "mine",
                                          "spatial_dims"]
    assert "window" in attrs["shape_attrs"]
    update_attrs(attrs, "shape_attrs", "kernel")
    assert "kernel" in attrs["shape_attrs"]
    assert update_ie_fields(attrs) is None and "IE" not in attrs


def test_runtime_info_serializes_as_the_ir_writer_reads_it() -> None:
    with legacy_imports():
        from openvino.tools.mo.utils.runtime_info import (
            OldAPIMapElementType,
            OldAPIMapOrder,
            RTInfo,
        )

    info = RTInfo()
    assert not info and not info.contains("old_api_map_order")
    order = OldAPIMapOrder(version=0)
    order.old_api_transpose_parameter([0, 2, 3, 1])
    info.info[("old_api_map_order", order.get_version())] = order
    kind = OldAPIMapElementType()
    kind.set_legacy_type(np.float16)
    info.info[("old_api_map_element_type", 0)] = kind
    assert info.contains("old_api_map_order")
    assert info.get_attribute_version("old_api_map_order") == 0
    assert dict(info.items()) == {"old_api_map_order": {"value": "0,2,3,1"},
                                  "old_api_map_element_type": {"value": "f16"}}
    graph = chain("front")
    for name, kind in (("x", "Parameter"), ("out", "Result")):
        Node(graph, name)["type"] = kind
    assert order.serialize(Node(graph, "x")) == {"value": "0,2,3,1"}
    assert order.serialize(Node(graph, "out")) == {}
    with pytest.raises(Exception, match="does not contain"):
        info.get_attribute_version("absent")


def test_tf_data_type_tables() -> None:
    with legacy_imports():
        from mo.front.tf.common import bool_cast, tf_data_type_cast, tf_data_type_decode

    np_type, values = tf_data_type_decode[1]  # DT_FLOAT
    assert np_type is np.float32 and values(SimpleNamespace(float_val=[1.5])) == [1.5]
    half_type, half = tf_data_type_decode[19]
    assert half_type is np.float16
    assert half(SimpleNamespace(half_val=[np.float16(2.0).view(np.uint16)])) == [2.0]
    assert tf_data_type_decode[10][0] is bool and tf_data_type_decode[7][0] is str
    assert tf_data_type_cast[np.int8](3) == np.int8(3) and tf_data_type_cast[bool]("0") is False
    assert bool_cast("TRUE") is True and bool_cast("maybe") == "unknown_boolean_cast"


def test_layout_lookup_and_batch_override() -> None:
    with legacy_imports():
        from mo.front.common.layout import get_dim_from_layout, indices_mapping
        from mo.middle.passes.infer import override_batch

    graph = chain("front")
    x = Node(graph, "x")
    x["shape"] = np.array([1, 3, 8, 8])
    assert get_dim_from_layout(x, "N") == (None, False)
    graph.graph["cmd_params"] = SimpleNamespace(layout_values={"": {"source_layout": "[C,N,H,W]"}})
    assert get_dim_from_layout(x, "N") == (1, True)
    assert get_dim_from_layout(x, "D") == (None, True)
    override_batch(graph, 4)
    assert list(x.shape) == [1, 4, 8, 8]
    graph.graph["cmd_params"] = SimpleNamespace(layout_values={"x": {"source_layout": "...C"}})
    assert get_dim_from_layout(x, "C") == (3, True)
    assert indices_mapping[5]["NHWC"] == "NDHWC"


def test_small_utils() -> None:
    with legacy_imports():
        from mo.utils.utils import (
            NamedAttrsClass,
            array_to_str,
            group_by_with_binary_predicate,
            shrink_str_value,
            unique_by,
        )

    close = lambda a, b: abs(a - b) <= 1  # noqa: E731
    assert group_by_with_binary_predicate([1, 2, 5, 6, 9], close) == [[1, 2], [5, 6], [9]]
    assert unique_by([1, 2, 5, 6, 9], close) == [1, 5, 9] and unique_by([], close) == []
    assert NamedAttrsClass({"a": 1}).a == 1
    assert shrink_str_value("x" * 200, 10) == "xxxxxxx..." and shrink_str_value("ab") == "ab"
    graph = chain("front")
    Node(graph, "x")["dims"] = [1, 2]
    assert array_to_str(Node(graph, "x"), "dims") == "1,2"
    assert array_to_str(Node(graph, "x"), "absent") is None


def test_fusing_searches_and_match_checks() -> None:
    with legacy_imports():
        from mo.graph.perm_inputs import get_node_with_permutation
        from mo.middle.passes.fusing.helpers import backward_bfs, forward_bfs, get_tensor_id
        from mo.middle.pattern_match import check_node_usages_out_of_match

    graph = chain("front")
    relu, tanh = Node(graph, "relu"), Node(graph, "tanh")
    for node, kind in ((relu, "ReLU"), (tanh, "Tanh"), (Node(graph, "x"), "Parameter")):
        node["type"] = kind
    assert [n.id for n in forward_bfs(relu, [], ["Tanh"])] == ["tanh"]
    Node(graph, "out")["type"] = "Result"
    assert forward_bfs(relu, [], ["Tanh"]) == []  # the Result branch does not reach a Tanh
    assert [n.id for n in backward_bfs(tanh, ["ReLU"], ["Parameter"])] == ["x"]
    assert [n.id for n in backward_bfs(tanh, [], ["Parameter"], allowed_all=True)] == ["x"]
    assert get_tensor_id(tanh) == 0
    assert get_node_with_permutation(tanh, "input:0") == relu
    assert check_node_usages_out_of_match({"a": relu, "b": tanh}, "b") is False
    assert check_node_usages_out_of_match(
        {"a": relu, "b": tanh, "o": Node(graph, "out2")}, "b") is True


def _port_shapes(graph, node: Node, shapes: dict) -> None:
    for idx, shape in shapes.items():
        src = op_node(graph, f"{node.id}_in{idx}", "Parameter")
        src.out_port(0).connect(node.in_port(idx))
        if shape is not None:
            node.in_port(idx).data.set_shape(np.array(shape))


def test_partial_inference_helpers() -> None:
    with legacy_imports():
        from mo.front.common.partial_infer.crop import crop_infer
        from mo.front.common.partial_infer.eltwise import eltwise_reverse_infer
        from mo.front.common.partial_infer.utils import (
            clarify_partial_shape,
            convert_deconv_tf_padding_to_str,
            shape_array,
        )
        from openvino.tools.mo.ops.argmax import arg_ops_infer

    graph = chain("middle")
    crop = op_node(graph, "crop", "Crop", axis=2, offset=[1])
    _port_shapes(graph, crop, {0: [1, 3, 10, 10], 1: [1, 3, 4, 5]})
    crop_infer(crop)
    assert list(crop.out_port(0).data.get_shape()) == [1, 3, 4, 5]
    assert (crop.axis, crop.offset, crop.dim) == ([2, 3], [1, 1], [4, 5])

    arg = op_node(graph, "arg", "ArgMax", top_k=2, axis=-1)
    _port_shapes(graph, arg, {0: [2, 7]})
    arg_ops_infer(arg)
    assert list(arg.out_port(0).data.get_shape()) == [2, 2] and arg.axis == 1

    add = op_node(graph, "add", "Add", auto_broadcast="numpy")
    _port_shapes(graph, add, {0: [1], 1: None})
    add.out_port(0).data.set_shape(np.array([5, 4, 3]))
    eltwise_reverse_infer(add)
    assert list(add.in_port(1).data.get_shape()) == [5, 4, 3]

    merged = clarify_partial_shape([shape_array([-1, 2, -1]), shape_array([10, -1, -1])])
    assert list(merged[:2]) == [10, 2] and np.ma.is_masked(merged[2])
    assert convert_deconv_tf_padding_to_str("SAME") == "same_lower"


def test_type_and_mxnet_helpers() -> None:
    from converter.graph.graph import Graph
    from converter.legacy.ops import builtin_op

    with legacy_imports():
        from mo.front.mxnet.extractors.utils import (
            get_json_layer_attrs,
            mxnet_str_dtype_to_np,
            scalar_ops_replacer,
        )
        from mo.middle.passes.convert_data_type import convert_blob
        from mo.ops.elementwise import Mul

    blob, finite, zeros = convert_blob(np.array([1e-30, 7e5, 1.0], np.float32), np.float16)
    assert blob.dtype == np.float16 and (finite, zeros) == (1, 1)
    with pytest.raises(Exception, match="rounding"):
        convert_blob(np.array([1.5]), np.int32)
    assert mxnet_str_dtype_to_np("float16") is np.float16
    assert get_json_layer_attrs({"attrs": {"a": "1"}}) == {"a": "1"}

    graph = Graph()
    graph.stage = "front"
    x = builtin_op("Parameter")(graph, {"name": "x"}).create_node()
    scalar = op_node(graph, "s", "_mul_scalar", scalar=2.0)
    out = builtin_op("Result")(graph, {"name": "out"}).create_node()
    x.out_port(0).connect(scalar.in_port(0))
    scalar.out_port(0).connect(out.in_port(0))
    mul = scalar_ops_replacer(graph, scalar, Mul)
    assert mul.type == "Multiply" and out.in_port(0).get_source().node == mul
    assert mul.in_port(0).get_source().node == x and mul.in_node(1).value == 2.0


def test_batch_sized_constant_and_box_swap_subgraphs() -> None:
    with legacy_imports():
        from mo.front.tf.graph_utils import add_convolution_to_swap_xy_coordinates
        from openvino.tools.mo.middle.MakeKaldiConstReshapable import (
            create_const_with_batch_from_input,
        )

    graph = chain("front")
    x = Node(graph, "x")
    fill = create_const_with_batch_from_input(x.out_port(0), 5, value=1)
    assert fill.op == "Broadcast" and fill.in_node(0).value.tolist() == [1.0]
    dims = fill.in_node(1)
    assert dims.op == "Concat" and dims.in_node(1).value.tolist() == [5]
    batch = dims.in_node(0)
    assert batch.op == "Gather" and batch.in_node(1).value.tolist() == [0]
    assert batch.in_node(0).op == "ShapeOf" and batch.in_node(0).in_node(0) == x
    assert create_const_with_batch_from_input(x.out_port(0), 5, value=1) == fill  # reused
    assert create_const_with_batch_from_input(x.out_port(0), 3) != fill

    swap = add_convolution_to_swap_xy_coordinates(graph, Node(graph, "relu"), 5)
    reshape = swap.in_node(0)
    assert reshape.op == "Reshape" and reshape.in_node(1).value.tolist() == [-1, 1, 1, 5]
    assert swap.op == "Gather" and swap.in_node(1).value.tolist() == [0, 2, 1, 4, 3]
    assert swap.in_node(2).value == -1 and reshape.in_node(0) == Node(graph, "relu")


def test_registries_and_kaldi_input_lookup(tmp_path) -> None:
    with legacy_imports():
        from mo.front.common.custom_replacement_registry import CustomReplacementRegistry
        from mo.utils.unsupported_ops import UnsupportedOps
        from openvino.tools.mo.middle.InsertSelect import check_inputs
        from openvino.tools.mo.middle.TensorIteratorCondition import looking_for_op_in_list

    graph = chain("front")
    assert check_inputs(graph) == Node(graph, "x")
    op_node(graph, "ivector", "Parameter")
    assert check_inputs(graph) == Node(graph, "x")
    op_node(graph, "third", "Parameter")
    with pytest.raises(Exception, match="3 inputs"):
        check_inputs(graph)
    nodes = [Node(graph, n) for n in ("x", "relu", "tanh")]
    assert looking_for_op_in_list(nodes, "Tanh") == nodes[2]
    assert looking_for_op_in_list(nodes, "Sigmoid") is None

    unsupported = UnsupportedOps(graph)
    unsupported.add(Node(graph, "relu"))
    lines: list[str] = []
    unsupported.report(lines.append, "Unsupported:")
    assert lines == ["Unsupported:", "    ReLU (1)", "        relu"]

    config = tmp_path / "replacements.json"
    config.write_text('[{"id": "MyCut", "match_kind": "scope", "instances": ["a/"]}]')
    registry = CustomReplacementRegistry()
    registry.add_custom_replacement_description_from_config(str(config))
    assert [d.id for d in CustomReplacementRegistry().get_custom_replacement_description(
        "MyCut")] == ["MyCut"]
    assert CustomReplacementRegistry().get_custom_replacement_description("absent") is None
    with pytest.raises(Exception, match="doesn't exist"):
        registry.add_custom_replacement_description_from_config(str(tmp_path / "none.json"))


def test_prior_box_and_reshape_shape_updates() -> None:
    with legacy_imports():
        from mo.front.common.partial_infer.multi_box_prior import multi_box_prior_infer_mxnet
        from openvino.tools.mo.back.OptimizeTransposeReshapeSequence import (
            set_reshape_new_output_shape,
        )

    graph = chain("middle")
    prior = op_node(graph, "prior", "MultiBoxPrior", min_size=[0.2, 0.4], aspect_ratio=[1, 2])
    _port_shapes(graph, prior, {0: [1, 8, 3, 5]})
    multi_box_prior_infer_mxnet(prior)
    assert list(prior.out_port(0).data.get_shape()) == [1, 2, 3 * 5 * 3 * 4]

    reshape = op_node(graph, "reshape", "Reshape")
    _port_shapes(graph, reshape, {0: [6], 1: [2]})
    set_reshape_new_output_shape(reshape, np.array([2, 3]))
    assert list(reshape.out_port(0).data.get_shape()) == [2, 3]
    assert reshape.in_port(1).data.get_value().tolist() == [2, 3]


def test_extracting_node_attributes_and_output_identities(caplog) -> None:
    with legacy_imports():
        from mo.front.extractor import add_outputs_identity, extract_node_attrs
        from mo.front.tf.custom_subgraph_call import skip_nodes_by_condition

    graph = chain("front")

    def extractor(node: Node) -> tuple[bool, dict]:
        return node.op != "Tanh", {"seen": node.id}

    extract_node_attrs(graph, extractor)
    assert Node(graph, "relu").seen == "relu" and "axis" in Node(graph, "relu").dim_attrs
    assert Node(graph, "out").in_attrs == [] and not Node(graph, "out").has("seen")
    assert "Tanh (1)" in caplog.text and "dim_attrs" not in Node(graph, "tanh")

    def add_edge(g, src: str, dst: str, **attrs: object) -> None:
        g.add_edge(src, dst, **attrs)

    add_outputs_identity(graph, ["tanh"], add_edge, {"out": 0, "in": 0})
    (identity,) = [n for n in graph.get_op_nodes(op="Identity")]
    assert identity.needs_removal and identity.in_port(0).get_source().node.id == "tanh"
    assert skip_nodes_by_condition(Node(graph, "tanh"), lambda n: n.op != "Parameter") == \
        Node(graph, "x")


def test_star_import_of_mo_graph_gives_what_mo_graph_imported() -> None:
    namespace: dict = {}
    with legacy_imports():
        exec("from mo.graph.graph import *", namespace)  # noqa: S102
    assert namespace["np"] is np and namespace["Node"] is Node
    assert namespace["nx"].__name__ == "networkx" and namespace["log"].getLogger


def test_caffe_convolution_attributes_and_tensor_nodes() -> None:
    with legacy_imports():
        from mo.front.caffe.extractor import node_pb_arg
        from mo.front.extractor import create_tensor_nodes
        from openvino.tools.mo.front.caffe.conv_ext import conv_create_attrs, conv_set_params

    param = SimpleNamespace(kernel_size=[3], kernel_h=0, kernel_w=0, pad=[], pad_h=2, pad_w=1,
                            stride=[2], stride_h=0, stride_w=0, dilation=[2], group=[4],
                            num_output=16, bias_term=True)
    params = conv_set_params(param, "Convolution")
    assert (params["kernel"], params["padding"], params["stride"]) == ([3, 3], [1, 2], [2, 2])
    assert (params["dilate"], params["group"], params["output"]) == ([2, 2], 4, 16)
    attrs = conv_create_attrs(params)
    assert attrs["pad"].tolist() == [[0, 0], [0, 0], [2, 2], [1, 1]]
    assert attrs["stride"].tolist() == [1, 1, 2, 2] and attrs["kernel_spatial"].tolist() == [3, 3]
    node = SimpleNamespace(pb="layer", model_pb="blobs")
    assert node_pb_arg(lambda pb, model: (pb, model))(node) == ("layer", "blobs")

    graph = chain("front")
    create_tensor_nodes(graph)
    assert graph.stage == "middle" and Node(graph, "relu").out_node(0).kind == "data"


@pytest.mark.parametrize(("attrs", "out", "state"), [
    ({"batch_dim": 1, "sequence_dim": 0, "direction": "forward"}, [7, 2, 4], [2, 4]),
    ({"batch_dim": 0, "sequence_dim": 1, "direction": "bidirectional",
      "has_num_directions": True}, [2, 2, 7, 4], [2, 2, 4]),
])
def test_rnn_infer_shapes_outputs_and_states(attrs: dict, out: list, state: list) -> None:
    with legacy_imports():
        from openvino.tools.mo.ops.RNN import rnn_infer

    graph = chain("middle")
    rnn = op_node(graph, "rnn", "LSTM", hidden_size=4, **attrs)
    shape = [7, 2, 3] if attrs["batch_dim"] == 1 else [2, 7, 3]
    _port_shapes(graph, rnn, {0: shape, 1: [16, 3], 2: [16, 4]})
    rnn_infer(rnn, [1, 2])
    assert [list(rnn.out_port(i).data.get_shape()) for i in range(3)] == [out, state, state]
    results = [d.node.op for i in range(3) for d in rnn.out_port(i).get_destinations()]
    assert results == ["Result"] * 3  # outputs nothing consumed become model outputs
    assert [d.get("bin") for _, _, d in sorted(graph.in_data("rnn"), key=lambda e: e[2]["in"])] \
        == [None, "weights", "biases"]
