"""What MO did around a legacy pass: nodes it built in the middle and back phases are inferred
after it (MO's clean-up and type inference), a Result it marked keep_output_port is not
written, MO's Clamp and AttributedClamp are told apart in patterns, a copy of MO's
CreateTensorNodes ends the front phase as extgen's pipeline does, MO's op names for ONNX ops are
seen, and a pass ordered before MO's
RestorePorts (on MO's loader graph, before it had ports) stops in one line."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.errors import ExtensionError
from converter.front.tf.writer import GraphBuilder
from converter.graph.graph import Graph
from converter.legacy import legacy_imports
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.graph.conftest import op_node
from tests.legacy.conftest import LAYOUTS, checked_in, write_ext

MO = LAYOUTS["openvino.tools.mo"]


def _model(tmp_path: Path, nodes: list, outputs: list[str]) -> Path:
    path = tmp_path / "m.onnx"
    onnx.save(make_model(nodes, [("x", TensorProto.FLOAT, [2, 3, 4])],
                         [(o, TensorProto.FLOAT, None) for o in outputs]), path)
    return path


def _layers(xml: Path) -> list[str]:
    return [layer.get("type") for layer in ET.parse(xml).iter("layer")]


def _run(xml: Path, x: np.ndarray) -> list[np.ndarray]:
    compiled = ov.Core().compile_model(str(xml), "CPU")
    result = compiled([x])
    return [np.asarray(result[out]) for out in compiled.outputs]


RESHAPE_AFTER_RELU = """
    from {MO}.back.replacement import BackReplacementPattern
    from {MO}.front.common.partial_infer.utils import int64_array
    from {MO}.front.tf.graph_utils import create_op_node_with_second_input
    from {MO}.ops.reshape import Reshape


    class FlattenRelu(BackReplacementPattern):
        enabled = True

        @staticmethod
        def find_and_replace_pattern(graph):
            for relu in graph.get_op_nodes(type='ReLU'):
                reshape = create_op_node_with_second_input(graph, Reshape, int64_array([-1]))
                relu.out_port(0).get_connection().insert_node(reshape)
"""


def test_a_node_a_back_pass_builds_is_typed_and_shaped_after_it(tmp_path: Path) -> None:
    """MO's clean-up inferred the nodes a pass left without shape or type (the IR writer
    needs both); a staticmethod find_and_replace_pattern runs as MO called it."""
    ext = write_ext(tmp_path, "ext", {"back/flatten_relu.py": RESHAPE_AFTER_RELU}, MO)
    model = _model(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], ["y"])
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "out", extensions=[ext])).xml
    assert _layers(xml).count("Reshape") == 1
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    (y,) = _run(xml, x)
    np.testing.assert_array_equal(y, np.maximum(x, 0).reshape(-1))


KEPT_RESULTS = """
    from {MO}.back.replacement import BackReplacementPattern
    from {MO}.ops.result import Result


    class ResultsOnTopK(BackReplacementPattern):
        enabled = True

        def pattern(self):
            return dict(nodes=[('topk', dict(type='TopK'))], edges=[])

        def replace_pattern(self, graph, match):
            topk = match['topk']
            keep = topk.has_and_set('remove_values_output')
            for port in (0, 1):
                if topk.out_port(port).disconnected():
                    result = Result(graph, {'keep_output_port': keep and port == 0}).create_node()
                    topk.out_port(port).connect(result.in_port(0))
"""


def test_an_argmax_values_result_marked_keep_output_port_is_not_written(
        tmp_path: Path) -> None:
    """MO's ArgMax TopK carried remove_values_output; a Result its TopKNormalizer put on the
    values output with keep_output_port left MO's IR, the port staying."""
    ext = write_ext(tmp_path, "ext", {"back/results.py": KEPT_RESULTS}, MO)
    model = _model(tmp_path, [helper.make_node("ArgMax", ["x"], ["i"], axis=2, keepdims=1),
                              helper.make_node("Cast", ["i"], ["y"], to=TensorProto.FLOAT)],
                   ["y"])
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "out", extensions=[ext])).xml
    assert _layers(xml).count("Result") == 1
    topk = next(layer for layer in ET.parse(xml).iter("layer") if layer.get("type") == "TopK")
    assert len(topk.find("output")) == 2


@pytest.mark.parametrize(("op", "found"), [("Clamp", ["bounds"]), ("AttributedClamp", ["attrs"])])
def test_mo_clamp_patterns_tell_bound_inputs_from_attributes(op: str, found: list) -> None:
    """MO's Clamp took its bounds as inputs, its AttributedClamp as attributes: extgen's Clamp
    is either, and a legacy pattern finds the one MO's name meant."""
    with legacy_imports():
        from openvino.tools.mo.middle.pattern_match import find_pattern_matches

    graph = Graph()
    graph.stage = "front"
    op_node(graph, "bounds", "Clamp", type="Clamp")
    op_node(graph, "attrs", "Clamp", type="Clamp", min=0.0, max=6.0)
    matches = find_pattern_matches(graph, [("c", {"op": op})], [])
    assert [m["c"].id for m in matches] == found


TENSOR_NODES = """
    from {MO}.front.common.replacement import FrontReplacementPattern
    from {MO}.front.extractor import create_tensor_nodes
    from {MO}.front.pass_separator import FrontFinish


    class MakeTensorNodes(FrontReplacementPattern):
        enabled = True

        def run_after(self):
            return [FrontFinish]

        def run_before(self):
            return []

        def find_and_replace_pattern(self, graph):
            graph.stage = 'middle'
            create_tensor_nodes(graph)
"""


def test_a_legacy_create_tensor_nodes_ends_the_front_phase_once(tmp_path: Path) -> None:
    """MO's CreateTensorNodes gave the graph its data nodes after the front passes; a copy
    does that job here, and extgen's own step after the front passes finds it done."""
    ext = write_ext(tmp_path, "ext", {"front/tensors.py": TENSOR_NODES}, MO)
    nodes = [helper.make_node("Reciprocal", ["x"], ["r"]),
             helper.make_node("Relu", ["r"], ["y"])]
    model = _model(tmp_path, nodes, ["y"])
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "out", extensions=[ext])).xml
    x = np.random.default_rng(1).uniform(1, 2, (2, 3, 4)).astype(np.float32)
    (y,) = _run(xml, x)
    np.testing.assert_allclose(y, 1 / x, rtol=1e-6)


SHAPES_AND_COPIES = """
    import numpy as np

    from {MO}.graph.graph import Node
    from {MO}.middle.replacement import MiddleReplacementPattern
    from {MO}.ops.op import Op


    class DoubleConstants(MiddleReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            for node in graph.get_op_nodes(type='Add'):
                shape = node.in_port(0).data.get_shape()
                if not isinstance(shape, np.ma.MaskedArray) or shape[shape != 1].size != 2:
                    raise TypeError(f"not MO's shape: {shape!r}")
                data = node.in_node(1)
                copy = Op.create_input_data_node(graph, 'copy', 2 * data.value, {})
                edge = graph.get_edge_data(data.id, node.id)[0]
                graph.remove_edge(data.id, node.id)
                graph.add_edges_from([(copy.id, node.id, dict(edge))])
"""


def test_a_middle_pass_sees_mo_s_shapes_and_its_constant_data_gets_a_const(
        tmp_path: Path) -> None:
    """Shapes are MO's masked int64 arrays while the pass runs (it raises otherwise); a data
    node it made with a value and no producer gets a Const, as MO's clean-up added; edges keep
    key 0 (the pass reads it)."""
    ext = write_ext(tmp_path, "ext", {"middle/copies.py": SHAPES_AND_COPIES}, MO)
    path = tmp_path / "m.onnx"
    bias = np.arange(4, dtype=np.float32)
    onnx.save(make_model([helper.make_node("Add", ["b", "x"], ["y"])],
                         [("x", TensorProto.FLOAT, [1, 3, 4])], [("y", TensorProto.FLOAT, None)],
                         {"b": bias}), path)
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "out", extensions=[ext])).xml
    assert _layers(xml).count("Const") == 1
    x = np.random.default_rng(2).standard_normal((1, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(_run(xml, x)[0], x + 2 * bias)


MO_OP_NAMES = """
    from {MO}.middle.replacement import MiddleReplacementPattern


    class ReadMoNames(MiddleReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            ops = sorted(n.op for n in graph.get_op_nodes() if n.type in ('Multiply', 'Power'))
            if ops != ['Mul', 'Pow']:
                raise ValueError(f"not MO's op names: {ops}")
"""


def test_a_middle_pass_sees_mo_s_op_names_and_the_ir_the_opset_s(tmp_path: Path) -> None:
    """MO kept its op names (Mul, Pow) to the end; a middle pass reading node.op finds them
    (it raises otherwise), and the IR has the opset's types."""
    ext = write_ext(tmp_path, "ext", {"middle/names.py": MO_OP_NAMES}, MO)
    path = _model(tmp_path, [helper.make_node("Mul", ["x", "x"], ["m"]),
                             helper.make_node("Pow", ["m", "x"], ["y"])], ["y"])
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "out", extensions=[ext])).xml
    assert {"Multiply", "Power"} <= set(_layers(xml))


FRAMEWORK_OP_NAMES = textwrap.dedent("""
    WANT = [('AveragePool', 'Pooling'), ('Conv', 'Convolution'),
            ('Deconv2D', 'ConvolutionBackpropData'), ('SoftMax', 'SoftMax')]


    def check(graph, phase):
        ops = sorted((n.op, n.type) for n in graph.get_op_nodes()
                     if n.soft_get('type') in ('Pooling', 'Convolution', 'ConvolutionBackpropData',
                                               'SoftMax'))
        # (the front phase's Softmax is MO's untyped SoftMaxONNX until MO's front pass lowered it)
        if ops != (WANT[:3] if phase == 'front' else WANT):
            raise ValueError(f"{phase}: not MO's op names: {ops}")
""") + checked_in(FrontNames="front", MiddleNames="middle")


def test_passes_see_mo_s_op_names_of_onnx_ops(tmp_path: Path) -> None:
    """MO's ONNX extractors named a Conv's convolution Conv, a ConvTranspose Deconv2D, an
    AveragePool AveragePool, and MO's front pass made a Softmax a SoftMax (typed SoftMax); front
    and middle passes see those names (they raise otherwise), and the IR has the opset's ops."""
    ext = write_ext(tmp_path, "ext", {"middle/names.py": FRAMEWORK_OP_NAMES}, MO)
    rng = np.random.default_rng(0)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]),
             helper.make_node("ConvTranspose", ["c", "wt"], ["d"]),
             helper.make_node("AveragePool", ["d"], ["p"], kernel_shape=[2]),
             helper.make_node("Softmax", ["p"], ["y"], axis=1)]
    inits = {"w": rng.standard_normal((3, 3, 1)).astype(np.float32),
             "wt": rng.standard_normal((3, 3, 1)).astype(np.float32)}
    path = tmp_path / "m.onnx"
    onnx.save(make_model(nodes, [("x", TensorProto.FLOAT, [2, 3, 4])],
                         [("y", TensorProto.FLOAT, None)], inits), path)
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "out", extensions=[ext])).xml
    assert {"Convolution", "ConvolutionBackpropData", "AvgPool", "SoftMax"} <= set(_layers(xml))


TF_CONCAT = """
    import numpy as np

    from {MO}.back.replacement import BackReplacementPattern
    from {MO}.front.common.replacement import FrontReplacementPattern


    def check(graph, phase):
        ops = sorted((n.op, n.soft_get('version')) for n in graph.get_op_nodes(type='Concat'))
        if ops != [('ConcatV2', None)]:
            raise ValueError(f"{phase}: not MO's op: {ops}")


    class FrontConcat(FrontReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            check(graph, 'front')
            node = graph.get_op_nodes(op='ConcatV2')[0]
            axis = node.in_port(2).get_source().node
            if (len(node.in_ports()), axis.op, int(axis.value), node.soft_get('axis')) != (
                    3, 'Const', 1, None):
                raise ValueError("front: not MO's ConcatV2 with its axis as input 2")
            if CHANGE:
                axis.value = np.int32(0)


    class BackConcat(BackReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            check(graph, 'back')
"""


def _concat_v2(tmp_path: Path, change: bool) -> Path:
    text = TF_CONCAT + f"\n    CHANGE = {change}\n"
    ext = write_ext(tmp_path, "ext", {"front/concat.py": text}, MO)
    g = GraphBuilder()
    x = g.placeholder("x", [2, 3])
    g.node("ConcatV2", "y", [x, x, g.const("axis", np.array(1, np.int32))], T=np.float32, N=2)
    path = g.save(tmp_path / "m.pb")
    return convert(ConvertOptions(path, output_dir=tmp_path / "out", extensions=[ext])).xml


def test_passes_see_a_tf_concat_v2_as_mo_made_it(tmp_path: Path) -> None:
    """MO's TF extractor kept ConcatV2's name and no version to the end (its basic_lstm_cell
    pattern matches op='ConcatV2'), its axis the last input in the front phase; front and back
    passes see that (they raise otherwise), and the IR has extgen's Concat."""
    xml = _concat_v2(tmp_path, change=False)
    assert ET.parse(xml).find(".//layer[@type='Concat']/data").get("axis") == "1"


def test_changing_the_shown_concat_axis_stops_naming_the_pass(tmp_path: Path) -> None:
    with pytest.raises(ExtensionError, match=r"concat\.py:\d+: the pass changed input 2 of MO's "
                       r"ConcatV2 node 'y', which extgen holds in another form in its Concat"):
        _concat_v2(tmp_path, change=True)


POOLING_TYPES = """
    from {MO}.back.replacement import BackReplacementPattern
    from {MO}.front.common.replacement import FrontReplacementPattern
    from {MO}.middle.replacement import MiddleReplacementPattern


    def methods(graph, **attrs):
        return sorted(n.pool_method for n in graph.get_op_nodes(**attrs))


    class FrontPools(FrontReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            if methods(graph, type='Pooling') != ['avg', 'max']:
                raise ValueError("the front phase has no Pooling of each method")


    class MiddlePools(MiddleReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            if methods(graph, type='Pooling', pool_method='max') != ['max']:
                raise ValueError("the middle phase has no Pooling of method max")


    class BackPools(BackReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            if graph.get_op_nodes(type='Pooling') or len(graph.get_op_nodes(type='MaxPool')) != 1:
                raise ValueError("the back phase still has MO's Pooling type")
"""


def test_passes_see_mo_s_pooling_type_until_the_back_phase(tmp_path: Path) -> None:
    """MO's max and average pooling were type Pooling (pool_method max or avg) until its back
    passes MaxPool and AvgPool; front and middle passes find them so (each raises otherwise),
    back passes and the IR find the opset's types."""
    ext = write_ext(tmp_path, "ext", {"front/pools.py": POOLING_TYPES}, MO)
    path = tmp_path / "pools.onnx"
    onnx.save(make_model([
        helper.make_node("MaxPool", ["x"], ["m"], kernel_shape=[2, 2]),
        helper.make_node("AveragePool", ["m"], ["y"], kernel_shape=[2, 2])],
        [("x", TensorProto.FLOAT, [1, 2, 5, 5])], [("y", TensorProto.FLOAT, None)]), path)
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "out", extensions=[ext])).xml
    assert {"MaxPool", "AvgPool"} <= set(_layers(xml)) and "Pooling" not in _layers(xml)


BEFORE_PORTS = {
    "front/early.py": """
        from {MO}.front.common.replacement import FrontReplacementPattern
        from {MO}.front.restore_ports import RestorePorts
        from {MO}.load.loader import LoadFinish


        class Early(FrontReplacementPattern):
            enabled = True

            def run_after(self):
                return [LoadFinish]

            def run_before(self):
                return [RestorePorts]

            def find_and_replace_pattern(self, graph):
                raise AssertionError('ran')
    """,
}


def test_a_pass_before_mo_s_restore_ports_refuses_in_one_line(tmp_path: Path) -> None:
    """MO's Kaldi SetPortsPattern and its like gave ports to the graph of MO's loader; such a
    pass stops the conversion naming its file, line and class (MO fails on a copy of its own
    too: the class name is not unique)."""
    ext = write_ext(tmp_path, "ext", BEFORE_PORTS, MO)
    model = _model(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], ["y"])
    with pytest.raises(ExtensionError) as err:
        convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext]))
    message = str(err.value)
    assert f"{ext / 'front' / 'early.py'}:6: Early runs before MO's RestorePorts" in message
    assert "\n" not in message and not (tmp_path / "ir").exists()
