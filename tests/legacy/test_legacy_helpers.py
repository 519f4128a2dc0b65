"""MO's helper functions as extension code calls them: building ops with constant inputs
(Caffe weights embedded by an extractor, front and middle passes), shape subgraphs, removing
an op after inference; the models convert and run in OpenVINO."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import openvino as ov
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.legacy.conftest import write_ext


def _run(xml: Path, x: np.ndarray) -> np.ndarray:
    compiled = ov.Core().compile_model(str(xml), "CPU")
    return compiled([x])[compiled.output(0)]


CAFFE_AFFINE = {
    "ops/legacy_affine.py": """
        from {MO}.ops.op import Op


        class LegacyAffine(Op):
            op = 'LegacyAffine'

            def __init__(self, graph, attrs):
                super().__init__(graph, {'op': self.op, 'in_ports_count': 3,
                                         'out_ports_count': 1}, attrs)
    """,
    "front/caffe/scale_ext.py": """
        from {MO}.front.caffe.extractors.utils import weights_biases
        from {MO}.front.extractor import FrontExtractorOp
        from {MO}.ops.legacy_affine import LegacyAffine


        class ScaleToAffine(FrontExtractorOp):
            op = 'Scale'
            enabled = True

            @classmethod
            def extract(cls, node):
                attrs = weights_biases(node.pb.scale_param.bias_term, node.model_pb)
                LegacyAffine.update_node_stat(node, attrs)
                return cls.enabled
    """,
    "front/affine_to_eltwise.py": """
        import numpy as np

        from {MO}.front.common.replacement import FrontReplacementOp
        from {MO}.front.tf.graph_utils import (create_op_node_with_second_input,
                                               create_op_with_const_inputs)
        from {EXT}.ops.elementwise import Add, Mul


        class AffineToEltwise(FrontReplacementOp):
            op = 'LegacyAffine'
            enabled = True

            def replace_op(self, graph, node):
                mul = Mul(graph, {'name': node.name + '/mul'}).create_node()
                node.in_port(0).get_connection().set_destination(mul.in_port(0))
                node.in_port(1).get_connection().set_destination(mul.in_port(1))
                add = Add(graph, {'name': node.name + '/add'}).create_node()
                mul.out_port(0).connect(add.in_port(0))
                node.in_port(2).get_connection().set_destination(add.in_port(1))
                shift = create_op_node_with_second_input(graph, Add, np.float32(0.5),
                                                         {'name': node.name + '/shift'}, add)
                neg = create_op_with_const_inputs(graph, Mul, {1: np.float32(-1)},
                                                  {'name': node.name + '/neg'}, shift)
                return [neg.id]
    """,
}

CAFFE_NET = """
name: "affine"
input: "data"
input_shape { dim: 2 dim: 3 }
layer { name: "scale" type: "Scale" bottom: "data" top: "out" scale_param { bias_term: true } }
"""


def test_caffe_weights_embedded_and_const_inputs(tmp_path: Path, layout) -> None:
    from tests.front.test_caffe import write_model

    w, b = np.array([1.5, -2, 3], np.float32), np.array([0.25, 0, -1], np.float32)
    model = write_model(tmp_path, "affine", CAFFE_NET, {"scale": [w, b]})
    ext = write_ext(tmp_path, "ext", CAFFE_AFFINE, layout)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_run(xml, x), -(x * w + b + 0.5), rtol=1e-6)


MIDDLE = {
    "middle/drop_relu.py": """
        from {MO}.middle.passes.eliminate import remove_op_node_with_data_node
        from {MO}.middle.replacement import MiddleReplacementPattern


        class DropRelu(MiddleReplacementPattern):
            enabled = True

            def find_and_replace_pattern(self, graph):
                for node in graph.get_op_nodes(type='ReLU'):
                    remove_op_node_with_data_node(graph, node)
    """,
    "middle/swap_dims.py": """
        import numpy as np

        from {MO}.front.tf.graph_utils import create_op_with_const_inputs
        from {MO}.middle.passes.eliminate import remove_op_node_with_data_node
        from {MO}.middle.replacement import MiddleReplacementPattern
        from {MO}.ops.reshape import Reshape
        from {MO}.utils.shape import (get_shape_and_rank_nodes_by_port,
                                      new_shape_node_from_shape_nodes,
                                      node_to_get_shape_value_of_indices)
        from {EXT}.middle.drop_relu import DropRelu


        class SwapDims(MiddleReplacementPattern):
            enabled = True
            force_shape_inference = True

            def run_after(self):
                return [DropRelu]

            def find_and_replace_pattern(self, graph):
                (neg,) = graph.get_op_nodes(type='Negative')
                source = neg.in_port(0).get_source()
                shape, rank = get_shape_and_rank_nodes_by_port(source)
                dims = [node_to_get_shape_value_of_indices(shape, [i]) for i in (1, 0)]
                reshape = Reshape(graph, {'name': 'swapped', 'special_zero': False}).create_node()
                neg.in_port(0).get_connection().set_destination(reshape.in_port(0))
                new_shape_node_from_shape_nodes(dims).out_port(0).connect(reshape.in_port(1))
                reshape.out_port(0).connect(neg.in_port(0))
    """,
}


def test_middle_helpers_rewire_after_inference(tmp_path: Path, layout) -> None:
    model = tmp_path / "relu_neg.onnx"
    # y declared as the model computes it; the user's middle pass reshapes it to [3, 2]
    onnx.save(make_model(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["r"], ["y"])],
        [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 3])]), model)
    ext = write_ext(tmp_path, "ext", MIDDLE, layout)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    assert 'type="ReLU"' not in xml.read_text() and 'name="swapped"' in xml.read_text()
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_run(xml, x), -x.reshape(3, 2), rtol=1e-6)


def test_small_helpers_keep_mo_semantics() -> None:
    from converter.graph.graph import Graph, Node
    from converter.legacy import legacy_imports

    with legacy_imports():
        from mo.front.caffe.extractors.utils import embed_input, get_canonical_axis_index
        from mo.front.common.layout import shape_for_layout
        from mo.front.extractor import attr_getter, bool_to_str
        from mo.graph.graph import dict_includes
        from mo.middle.passes.convert_data_type import (
            data_type_str_to_np,
            np_data_type_to_destination_type,
            np_data_type_to_precision,
        )

    graph = Graph()
    graph.add_node("n", kind="op", flag=1, off="0", yes=True, dims=[1, 2], other="x")
    node = Node(graph, "n")
    assert [bool_to_str(node, a) for a in ("flag", "off", "yes", "other", "absent")] == [
        "true", "false", "true", None, None]
    assert attr_getter(node, "dims") == "1,2" and attr_getter(node, "absent") is None
    assert dict_includes({"a": 1, "b": 2}, {"a": 1, "b": lambda v: v > 1})
    assert not dict_includes({"a": 1}, {"a": 2})
    assert get_canonical_axis_index([1, 2, 3], -1) == 2
    assert data_type_str_to_np("FP16") is np.float16 and data_type_str_to_np("nope") is None
    assert np_data_type_to_destination_type(np.dtype("int64")) == "i64"
    assert np_data_type_to_destination_type(bool) == "boolean"
    assert np_data_type_to_precision(np.float32) == "FP32"
    assert list(shape_for_layout("NHWC", batch=1, features=3, height=5, width=7)) == [1, 5, 7, 3]
    five = shape_for_layout("NCHW", batch=1, features=3, depth=2, height=5, width=7)
    assert list(five) == [1, 3, 2, 5, 7]
    attrs: dict = {}
    embed_input(attrs, 1, "weights", [1, 2])
    assert attrs["weights"].dtype == np.float32
    assert attrs["embedded_inputs"] == [(1, "weights", {"bin": "weights"})]


def test_shape_and_graph_helpers() -> None:
    from converter.graph.graph import Graph, Node
    from converter.legacy import legacy_imports

    with legacy_imports():
        from openvino.tools.mo.front.common.partial_infer.utils import (
            shape_array,
            tf_window_op_pad_infer,
        )
        from openvino.tools.mo.middle.InsertLayoutPropagationTransposes import (
            is_input_data_in_correct_layout,
            mark_as_correct_data_layout,
        )
        from openvino.tools.mo.utils.broadcasting import bi_directional_shape_broadcasting
        from openvino.tools.mo.utils.graph import bfs_search, is_connected_component
        from openvino.tools.mo.utils.utils import match_shapes

    pad, out = tf_window_op_pad_infer(shape_array([5, 6]), np.array([3, 3]), np.array([2, 2]),
                                      "same_upper")
    assert pad.tolist() == [[1, 1], [0, 1]] and out.tolist() == [3, 3]
    pad, out = tf_window_op_pad_infer(shape_array([5, 6]), np.array([3, 3]), np.array([1, 2]),
                                      "valid")
    assert pad.tolist() == [[0, 0], [0, 0]] and out.tolist() == [3, 2]
    assert bi_directional_shape_broadcasting([1, 3, -1], [2, 1, 1]).tolist() == [2, 3, None]
    assert bi_directional_shape_broadcasting([2], [3]) is None
    assert match_shapes([0, 3, -1], [7, 3, 9]) and not match_shapes([1, 3], [2, 3])
    graph = Graph()
    graph.add_edges_from([("a", "b"), ("a", "c"), ("c", "d")])
    graph.add_node("lone")
    assert bfs_search(graph, ["a"]) == ["a", "b", "c", "d"]
    assert is_connected_component(graph, ["b", "a", "d", "c"])
    assert not is_connected_component(graph, ["b", "lone"])
    graph.add_node("op", kind="op")
    graph.add_edge("a", "op", **{"in": 0})
    node = Node(graph, "op")
    mark_as_correct_data_layout(node)
    assert is_input_data_in_correct_layout(node, 0) and not is_input_data_in_correct_layout(node, 1)


def test_sub_graph_between_nodes_takes_inputs_and_stops_at_ends() -> None:
    import pytest

    from converter.graph.graph import Graph
    from converter.legacy import legacy_imports

    with legacy_imports():
        from mo.utils.error import Error
        from mo.utils.graph import sub_graph_between_nodes

    graph = Graph()
    graph.add_edges_from([("x", "start"), ("start", "mid"), ("w", "mid"), ("mid", "end"),
                          ("end", "after")])
    graph.nodes["x"]["op"] = "Parameter"
    assert sorted(sub_graph_between_nodes(graph, ["start"], ["end"])) == [
        "end", "mid", "start", "w"]
    with pytest.raises(Error, match="not reachable"):
        sub_graph_between_nodes(graph, ["mid"], ["start"])
    with pytest.raises(Error, match="network input"):
        sub_graph_between_nodes(graph, ["w"], ["end"])  # mid takes start, start takes x


def test_invert_sub_graph_between_nodes_walks_back_and_takes_consumers() -> None:
    from converter.graph.graph import Graph
    from converter.legacy import legacy_imports

    with legacy_imports():
        from mo.utils.graph import invert_sub_graph_between_nodes

    graph = Graph()
    graph.add_edges_from([("x", "start"), ("start", "mid"), ("start", "side"), ("w", "mid"),
                          ("mid", "end"), ("end", "after")])
    graph.nodes["x"]["op"] = "Parameter"
    # back from end to start: mid and its other input w, and start's other consumer side
    assert sorted(invert_sub_graph_between_nodes(graph, ["end"], ["start"])) == [
        "end", "mid", "side", "start", "w"]
    nodes, extra = invert_sub_graph_between_nodes(graph, ["end"], ["start"],
                                                  lambda node: node.id == "start")
    assert extra == ["start"] and "side" not in nodes  # start's consumers are not followed


def test_broadcasting_and_graph_lookups() -> None:
    from converter.graph.graph import Graph
    from converter.legacy import legacy_imports

    with legacy_imports():
        from extensions.utils.broadcasting import (
            explicit_broadcasting,
            uni_directional_broadcasting,
            uni_directional_shape_broadcasting,
        )
        from mo.graph.graph import merge_edge_props
        from mo.utils.find_inputs import find_inputs, find_outputs
        from mo.utils.graph import nodes_matching_name_pattern

    assert uni_directional_shape_broadcasting([3, 1], [2, 3, 4]).tolist() == [2, 3, 4]
    assert uni_directional_shape_broadcasting([3, 5], [3, -1]).tolist() == [3, 5]
    assert uni_directional_shape_broadcasting([2, 3], [3]) is None
    assert uni_directional_broadcasting(np.array([1, 2], np.int32), [2, 2]).tolist() == [
        [1, 2], [1, 2]]
    assert explicit_broadcasting(np.array([1, 2]), [2, 3], [0]).tolist() == [[1, 1, 1], [2, 2, 2]]
    graph = Graph()
    graph.add_node("in", type="Parameter", op="Parameter")
    graph.add_node("out", op="Result")
    graph.add_edges_from([("in", "relu/1"), ("relu/1", "out")])
    assert find_inputs(graph) == ["in"] and find_outputs(graph) == ["relu/1"]
    assert nodes_matching_name_pattern(graph, r"relu/\d") == ["relu/1"]
    assert merge_edge_props({"in": 0, "names": ["a"]}, {"in": 3, "names": ["b"], "x": 1}) == {
        "in": 0, "names": ["a", "b"], "x": 1}


CONCAT_AND_WRAP = {
    "ops/my_concat.py": """
        from {MO}.front.common.partial_infer.concat import concat_infer
        from {MO}.ops.op import Op


        class MyConcat(Op):
            op = 'MyConcat'

            def __init__(self, graph, attrs):
                super().__init__(graph, dict(type='Concat', op=self.op, version='opset1',
                                             infer=concat_infer, out_ports_count=1), attrs)

            def supported_attrs(self):
                return ['axis']
    """,
    "front/onnx/my_concat_ext.py": """
        from {MO}.front.extractor import FrontExtractorOp
        from {MO}.front.onnx.extractors.utils import onnx_attr
        from {MO}.ops.my_concat import MyConcat


        class MyConcatExtractor(FrontExtractorOp):
            op = 'MyConcat'
            enabled = True

            @classmethod
            def extract(cls, node):
                MyConcat.update_node_stat(node, {'axis': onnx_attr(node, 'axis', 'i')})
                return cls.enabled
    """,
    "front/wrap_indices.py": """
        import numpy as np

        from {MO}.front.common.replacement import FrontReplacementPattern
        from {MO}.front.tf.graph_utils import add_constant_to_negative_values


        class WrapIndices(FrontReplacementPattern):
            enabled = True

            def find_and_replace_pattern(self, graph):
                for node in graph.get_op_nodes(op='Gather'):
                    add_constant_to_negative_values(node, 1, np.array(2, np.int64))
    """,
}


def test_concat_infer_and_negative_index_wrapping(tmp_path: Path, layout) -> None:
    model = tmp_path / "concat_gather.onnx"
    onnx.save(make_model(
        [helper.make_node("MyConcat", ["x", "y"], ["c"], domain="my.domain", axis=-1),
         helper.make_node("Gather", ["c", "i"], ["out"], axis=0)],
        [("x", TensorProto.FLOAT, [3, 2]), ("y", TensorProto.FLOAT, [3, 1]),
         ("i", TensorProto.INT64, [2])], [("out", TensorProto.FLOAT, [2, 3])],
        domains=("my.domain",)), model)
    ext = write_ext(tmp_path, "ext", CONCAT_AND_WRAP, layout)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    assert 'type="Concat"' in xml.read_text() and 'axis="1"' in xml.read_text()
    compiled = ov.Core().compile_model(str(xml), "CPU")
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = np.array([[10], [20], [30]], np.float32)
    got = compiled([x, y, np.array([-1, 0])])[compiled.output(0)]
    np.testing.assert_array_equal(got, np.concatenate([x, y], 1)[[1, 0]])  # -1 wrapped by 2


def test_slicing_and_caffe_attribute_helpers() -> None:
    from types import SimpleNamespace

    from converter.legacy import legacy_imports

    with legacy_imports():
        from mo.front.caffe.extractors.utils import get_spatial_attr
        from mo.front.common.partial_infer.utils import get_shape_from_slice

    assert get_shape_from_slice([4, 5, 6], [slice(1, 3), np.newaxis, Ellipsis]).tolist() == [
        2, 1, 5, 6]
    assert get_shape_from_slice([4, -1, 6], [0, slice(None), slice(None, None, 2)]).tolist() == [
        None, 3]
    pool = SimpleNamespace(kernel_h=0, kernel_w=0, kernel_size=[3])
    assert get_spatial_attr([1, 1], "kernel_size", "kernel", pool) == (3, 3)
    pool = SimpleNamespace(kernel_h=2, kernel_w=5, kernel_size=[])
    assert get_spatial_attr([1, 1], "kernel_size", "kernel", pool) == (5, 2)


def test_registry_and_edge_helpers() -> None:
    import pytest

    from converter.graph.graph import Graph, Node
    from converter.legacy import legacy_imports

    with legacy_imports():
        from mo.front.common.register_custom_ops import (
            add_or_override_extractor,
            check_for_duplicates,
        )
        from mo.front.onnx.extractors.utils import get_onnx_datatype_as_numpy
        from mo.graph.graph import get_edge_attribute_between_nodes
        from mo.utils.error import Error
        from mo.utils.graph import clear_tensor_names_info
        from mo.utils.logger import log
        from openvino.tools.mo.ops.ReduceOps import reduce_map

    table = {"Conv": 1, "Relu": 2}
    keys = check_for_duplicates(table)
    add_or_override_extractor(table, keys, "conv", 3)
    assert table == {"Relu": 2, "conv": 3}
    with pytest.raises(Error, match="case insensitive"):
        check_for_duplicates({"A": 1, "a": 2})
    assert get_onnx_datatype_as_numpy(7) is np.int64 and get_onnx_datatype_as_numpy(1) is np.float32
    graph = Graph()
    graph.add_edge("a", "b", out=0, fw_tensor_debug_info=[("t", 0, "t")])
    clear_tensor_names_info([Node(graph, "a")])
    assert get_edge_attribute_between_nodes(Node(graph, "a"), Node(graph, "b"),
                                            "fw_tensor_debug_info") == [("t", 0, None)]
    log.debug("MO's extension code logs through the logging module")
    assert reduce_map["ReduceL2"](np.array([3.0, 4.0]), axis=0, keepdims=False) == 5.0


def test_edge_helpers_write_one_of_equal_edges() -> None:
    """Equal edges share one read-only dict: MO's helpers that write an edge change it alone."""
    from converter.graph.graph import Graph, Node
    from converter.legacy import legacy_imports
    from converter.legacy.mo_ops._base import move_inputs

    with legacy_imports():
        from mo.front.common.partial_infer.utils import mark_input_bins
        from mo.graph.graph import (
            get_edge_attribute_between_nodes,
            set_edge_attribute_between_nodes,
        )

    graph = Graph()
    for src, dst in (("w", "conv"), ("w2", "conv2")):
        graph.add_edge(src, dst, **{"out": 0, "in": 1})
    mark_input_bins(Node(graph, "conv"))
    assert graph.get_edge_data("w", "conv", 0) == {"out": 0, "in": 1, "bin": "weights"}
    assert graph.get_edge_data("w2", "conv2", 0) == {"out": 0, "in": 1}
    set_edge_attribute_between_nodes(Node(graph, "w2"), Node(graph, "conv2"), "x", 5)
    assert get_edge_attribute_between_nodes(Node(graph, "w2"), Node(graph, "conv2"), "x") == 5
    assert "x" not in graph.get_edge_data("w", "conv", 0)
    move_inputs(Node(graph, "conv"), [1])
    assert graph.get_edge_data("w", "conv", 0)["in"] == 0
    assert graph.get_edge_data("w2", "conv2", 0)["in"] == 1
