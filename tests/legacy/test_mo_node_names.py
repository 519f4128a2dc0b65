"""Through the front phase the graph holds MO's nodes where extension code looks for them: ONNX
Clip-11 is a Clamp fed its bounds on inputs 1 and 2 (MO's HSwishWithClamp pattern matches it),
an ONNX Mul is op 'Mul' (extgen's own front patterns still find it as Multiply), nodes built
with MO's op classes carry MO's op names, and MO's 3-input Clamp class builds one; the IR holds
the opset ops all the same."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.legacy.conftest import LAYOUTS, write_ext

HSWISH_EXT = Path(__file__).resolve().parents[1] / "data" / "mo_hswish_clamp"
X = np.random.default_rng(5).uniform(-5, 5, (2, 3, 4, 4)).astype(np.float32)


def _model(tmp_path: Path, nodes: list, inits: dict, opset: int = 13) -> Path:
    model = make_model(nodes, [("x", TensorProto.FLOAT, list(X.shape))],
                       [("y", TensorProto.FLOAT, list(X.shape))], inits, opset=opset)
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    return path


def _run(xml: Path) -> np.ndarray:
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled([X])[compiled.output(0)]


def _layer_types(xml: Path) -> list[str]:
    import xml.etree.ElementTree as ET

    return [layer.get("type") for layer in ET.parse(xml).getroot().iter("layer")]


@pytest.mark.parametrize("opset", [10, 13])  # Clip's bounds: attributes, then inputs
def test_mos_hswish_with_clamp_pattern_fuses_onnx_clip(tmp_path: Path, opset: int) -> None:
    inits = {"three": np.float32(3), "sixth": np.float32(1 / 6)}
    if opset >= 11:
        clip = helper.make_node("Clip", ["a", "zero", "six"], ["c"])
        inits.update(zero=np.float32(0), six=np.float32(6))
    else:
        clip = helper.make_node("Clip", ["a"], ["c"], min=0.0, max=6.0)
    nodes = [helper.make_node("Add", ["x", "three"], ["a"]), clip,
             helper.make_node("Mul", ["x", "c"], ["m"]),
             helper.make_node("Mul", ["m", "sixth"], ["y"])]
    path = _model(tmp_path, nodes, inits, opset)
    ext = shutil.copytree(HSWISH_EXT, tmp_path / "ext")
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "ir", extensions=[ext])).xml
    assert _layer_types(xml) == ["Parameter", "HSwish", "Result"]
    want = ort.InferenceSession(str(path)).run(None, {"x": X})[0]
    np.testing.assert_allclose(_run(xml), want, rtol=1e-5, atol=1e-5)


def test_clip_without_extensions_is_one_clamp_with_attributes(tmp_path: Path) -> None:
    nodes = [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])]
    path = _model(tmp_path, nodes, {"lo": np.float32(-1.5), "hi": np.float32(2)})
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "ir")).xml
    assert _layer_types(xml) == ["Parameter", "Clamp", "Result"]
    assert 'min="-1.5"' in xml.read_text() and 'max="2"' in xml.read_text()
    np.testing.assert_array_equal(_run(xml), np.clip(X, -1.5, 2))


# Relu becomes MO's Clamp(x, 0, 6) * 2 built with MO's classes; a later pass finds the Mul by
# MO's op name and makes its factor 3
BUILT_BY_MO_CLASSES = {
    "front/build.py": """
        import numpy as np
        from {MO}.front.common.replacement import FrontReplacementOp
        from {MO}.ops.clamp import Clamp
        from {MO}.ops.const import Const
        from {EXT}.ops.elementwise import Mul


        def const(graph, value):
            return Const(graph, {'value': np.float32(value)}).create_node()


        class ReluToClampedDouble(FrontReplacementOp):
            op = 'Relu'
            enabled = True

            def replace_op(self, graph, node):
                clamp = Clamp(graph, {'name': 'clamped'}).create_node()
                node.in_port(0).get_source().connect(clamp.in_port(0))
                const(graph, 0).out_port(0).connect(clamp.in_port(1))
                const(graph, 6).out_port(0).connect(clamp.in_port(2))
                mul = Mul(graph, {'name': 'scaled'}).create_node()
                clamp.out_port(0).connect(mul.in_port(0))
                const(graph, 2).out_port(0).connect(mul.in_port(1))
                return [mul.id]
    """,
    "front/triple.py": """
        import numpy as np
        from {MO}.front.common.replacement import FrontReplacementPattern
        from {EXT}.front.build import ReluToClampedDouble


        class TripleInsteadOfDouble(FrontReplacementPattern):
            enabled = True

            def run_after(self):
                return [ReluToClampedDouble]

            def find_and_replace_pattern(self, graph):
                for mul in graph.get_op_nodes(op='Mul'):
                    mul.in_port(1).get_source().node['value'] = np.float32(3)
    """,
}


def test_nodes_of_mos_op_classes_carry_mos_op_names(tmp_path: Path) -> None:
    path = _model(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], {})
    ext = write_ext(tmp_path, "ext", BUILT_BY_MO_CLASSES, LAYOUTS["openvino.tools.mo"])
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "ir", extensions=[ext])).xml
    assert sorted(_layer_types(xml)) == ["Clamp", "Const", "Multiply", "Parameter", "Result"]
    np.testing.assert_allclose(_run(xml), np.clip(X, 0, 6) * 3, rtol=1e-6)


# a front pass of each API doubles what an ONNX Mul multiplies by: MO's finds it as 'Mul',
# extgen's as 'Multiply'
DOUBLERS = {
    "mo": ("front/double.py", """
        import numpy as np
        from {MO}.front.common.replacement import FrontReplacementPattern


        class DoubleMul(FrontReplacementPattern):
            enabled = True

            def find_and_replace_pattern(self, graph):
                for node in graph.get_op_nodes():
                    if node.soft_get('op') == 'Mul' and node.soft_get('type') == 'Multiply':
                        const = node.in_port(1).get_source().node
                        const['value'] = const['value'] * np.float32(2)
    """),
    "extgen": ("front/double.py", """
        import numpy as np
        from converter.front.replacement import FrontReplacementSubgraph


        class DoubleMultiply(FrontReplacementSubgraph):
            enabled = True

            def pattern(self):
                return {'nodes': [('mul', {'op': 'Multiply'})], 'edges': []}

            def replace_sub_graph(self, graph, match):
                const = match['mul'].in_port(1).get_source().node
                const['value'] = const['value'] * np.float32(2)
    """),
}


@pytest.mark.parametrize("api", list(DOUBLERS))
def test_front_passes_find_onnx_mul_by_their_apis_name(tmp_path: Path, api: str) -> None:
    path = _model(tmp_path, [helper.make_node("Mul", ["x", "k"], ["y"])], {"k": np.float32(3)})
    rel, text = DOUBLERS[api]
    ext = write_ext(tmp_path, "ext", {rel: text}, LAYOUTS["openvino.tools.mo"])
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "ir", extensions=[ext])).xml
    assert 'type="Multiply"' in xml.read_text()
    np.testing.assert_allclose(_run(xml), X * 6, rtol=1e-6)


SCALED_IN_BACK = {"back/scale.py": """
    import numpy as np
    from {MO}.back.replacement import BackReplacementPattern
    from {MO}.front.tf.graph_utils import create_op_with_const_inputs
    from {EXT}.ops.elementwise import Mul


    class ScaleRelu(BackReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            for relu in graph.get_op_nodes(op='ReLU'):
                mul = create_op_with_const_inputs(graph, Mul, {1: np.float32(5)}, {'name': 'k'})
                relu.out_port(0).get_connection().insert_node(mul)
"""}


def test_a_back_pass_may_leave_the_mo_node_it_built_uninferred(tmp_path: Path) -> None:
    path = _model(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], {})
    ext = write_ext(tmp_path, "ext", SCALED_IN_BACK, LAYOUTS["openvino.tools.mo"])
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "ir", extensions=[ext])).xml
    assert sorted(_layer_types(xml)) == ["Const", "Multiply", "Parameter", "ReLU", "Result"]
    np.testing.assert_allclose(_run(xml), np.maximum(X, 0) * 5, rtol=1e-6)
