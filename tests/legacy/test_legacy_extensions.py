"""Legacy Model Optimizer extension folders, written as the MO docs and the original generator's
templates wrote them, convert ONNX models unmodified; the IR runs in OpenVINO."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from extgen.errors import ExtensionError, ExtgenError
from tests.conftest import make_model
from tests.legacy.conftest import write_ext


def _save(tmp_path: Path, name: str, nodes, inputs, outputs, domains=("my.domain",)) -> Path:
    path = tmp_path / f"{name}.onnx"
    onnx.save(make_model(nodes, inputs, outputs, domains=domains), path)
    return path


def _convert(model: Path, out: Path, *exts: Path) -> Path:
    return convert(ConvertOptions(model, output_dir=out, extensions=list(exts))).xml


def _run(xml: Path, *inputs: np.ndarray) -> np.ndarray:
    compiled = ov.Core().compile_model(str(xml), "CPU")
    return compiled(list(inputs))[compiled.output(0)]


F23 = [2, 3]

# -- extractor + op (mandatory_props, supported_attrs, copy_shape_infer, classmethod extract) --

MY_ELU = {
    "ops/my_elu.py": """
        from {MO}.front.common.partial_infer.elemental import copy_shape_infer
        from {MO}.ops.op import Op


        class MyEluOp(Op):
            op = 'MyElu'
            enabled = False

            def __init__(self, graph, attrs):
                mandatory_props = dict(
                    type='Elu', op=self.op, version='opset1', infer=copy_shape_infer,
                    in_ports_count=1, out_ports_count=1,
                )
                super().__init__(graph, mandatory_props, attrs)

            def supported_attrs(self):
                return ['alpha']
    """,
    "front/onnx/my_elu_ext.py": """
        from {MO}.front.extractor import FrontExtractorOp
        from {MO}.front.onnx.extractors.utils import onnx_attr
        from ext.ops.my_elu import MyEluOp


        class MyEluFrontExtractor(FrontExtractorOp):
            op = 'MyElu'
            enabled = True

            @classmethod
            def extract(cls, node):
                MyEluOp.update_node_stat(node, {'alpha': onnx_attr(node, 'alpha', 'f', 1.0)})
                return cls.enabled
    """,
}


def test_extractor_and_op_run_in_openvino(tmp_path: Path, layout) -> None:
    model = _save(tmp_path, "my_elu", [helper.make_node(
        "MyElu", ["x"], ["y"], name="elu", domain="my.domain", alpha=0.5)],
        [("x", TensorProto.FLOAT, F23)], [("y", TensorProto.FLOAT, F23)])
    xml = _convert(model, tmp_path / "ir", write_ext(tmp_path, "ext", MY_ELU, layout))
    assert 'type="Elu" version="opset1"' in xml.read_text()
    x = np.array([[-2, -0.5, 0], [0.5, 1, 3]], np.float32)
    np.testing.assert_allclose(_run(xml, x), np.where(x > 0, x, 0.5 * (np.exp(x) - 1)), rtol=1e-6)


# -- the generator's template: staticmethod extract, __class__, the three supported_attrs forms,
#    an infer that edits MO shape arrays (dynamic batch: masked) --------------------------------

TWICE = {
    "ops/twice.py": """
        from {MO}.graph.graph import Node
        from {MO}.ops.op import Op


        class TwiceOp(Op):
            op = 'Twice'

            def __init__(self, graph, attrs):
                mandatory_props = dict(
                    type=__class__.op, op=__class__.op, infer=TwiceOp.infer,
                    in_ports_count=1, out_ports_count=1,
                )
                super().__init__(graph, mandatory_props, attrs)

            def supported_attrs(self):
                return ['factor', ('mode', lambda node: node.mode.upper()), ('axis', 'concat_axis'),
                        'absent']

            @staticmethod
            def infer(node: Node):
                shape = node.in_node(0).shape.copy()
                shape[-1] = shape[-1] * node.factor
                node.out_node(0).shape = shape
    """,
    "front/onnx/twice_ext.py": """
        from {MO}.front.extractor import FrontExtractorOp
        from {MO}.front.onnx.extractors.utils import onnx_attr
        from {MO}.ops.op import Op


        class TwiceFrontExtractor(FrontExtractorOp):
            op = 'Twice'
            enabled = True

            @staticmethod
            def extract(node):
                attrs = {
                    'factor': onnx_attr(node, 'factor', 'i', 1),
                    'mode': onnx_attr(node, 'mode', 's', b'slow').decode(),
                    'concat_axis': 1,
                }
                Op.get_op_class_by_name(__class__.op).update_node_stat(node, attrs)
                return __class__.enabled
    """,
}


def test_template_style_op_writes_ir_attrs_and_dynamic_dims(tmp_path: Path, layout) -> None:
    model = _save(tmp_path, "twice", [helper.make_node(
        "Twice", ["x"], ["y"], name="twice", domain="my.domain", factor=2, mode="fast")],
        [("x", TensorProto.FLOAT, ["N", 3])], [("y", TensorProto.FLOAT, ["N", 6])])
    text = _convert(model, tmp_path / "ir", write_ext(tmp_path, "ext", TWICE, layout)).read_text()
    assert 'type="Twice" version="extension"' in text
    assert '<data factor="2" mode="FAST" axis="1" />' in text
    out = text.split('type="Twice"')[1].split("<output>")[1].split("</output>")[0]
    assert 'precision="FP32"' in out and "<dim>-1</dim>" in out and "<dim>6</dim>" in out


# -- FrontReplacementOp: replace_op returns node ids -----------------------------------------

ADD_RELU = {
    "front/onnx/add_relu.py": """
        from {MO}.front.common.replacement import FrontReplacementOp
        from {MO}.graph.graph import Graph, Node
        from {EXT}.ops.activation_ops import ReLU
        from {EXT}.ops.elementwise import Add


        class AddReluReplacer(FrontReplacementOp):
            op = 'AddRelu'
            enabled = True

            def replace_op(self, graph: Graph, node: Node):
                add = Add(graph, {'name': node.name + '/add'}).create_node()
                node.in_port(0).get_connection().set_destination(add.in_port(0))
                node.in_port(1).get_connection().set_destination(add.in_port(1))
                relu = ReLU(graph, {'name': node.name + '/relu'}).create_node([add])
                return [relu.id]
    """,
}


def test_front_replacement_op(tmp_path: Path, layout) -> None:
    model = _save(tmp_path, "add_relu", [helper.make_node(
        "AddRelu", ["x", "y"], ["z"], name="fused", domain="my.domain")],
        [("x", TensorProto.FLOAT, F23), ("y", TensorProto.FLOAT, F23)],
        [("z", TensorProto.FLOAT, F23)])
    xml = _convert(model, tmp_path / "ir", write_ext(tmp_path, "ext", ADD_RELU, layout))
    x, y = np.array([[-1, 2, -3], [4, -5, 6]], np.float32), np.ones((2, 3), np.float32)
    np.testing.assert_allclose(_run(xml, x, y), np.maximum(x + y, 0))


# -- FrontReplacementSubgraph: x * sigmoid(x) -> Swish (MO's op names in the pattern) --------

SWISH = {
    "front/swish_fusion.py": """
        from {MO}.front.common.replacement import FrontReplacementSubgraph
        from {MO}.graph.graph import Graph, rename_nodes
        from {EXT}.ops.activation_ops import Swish


        class SwishWithSigmoidWithoutBeta(FrontReplacementSubgraph):
            enabled = True

            def pattern(self):
                return dict(
                    nodes=[('sigmoid', dict(op='Sigmoid')), ('mul', dict(op='Mul'))],
                    edges=[('sigmoid', 'mul', {})],
                )

            def replace_sub_graph(self, graph: Graph, match: dict):
                sigmoid, mul = match['sigmoid'], match['mul']
                mul_name = mul.soft_get('name', mul.id)
                other = int(mul.in_port(0).get_source().node.soft_get('op') == 'Sigmoid')
                if sigmoid.in_port(0).get_source() != mul.in_port(other).get_source():
                    return
                swish = Swish(graph, {}).create_node()
                swish.in_port(0).connect(sigmoid.in_port(0).get_source())
                mul.out_port(0).get_connection().set_source(swish.out_port(0))
                rename_nodes([(mul, mul_name + '/TBR'), (swish, mul_name)])
    """,
}


def test_front_replacement_subgraph_fuses_swish(tmp_path: Path, layout) -> None:
    model = _save(tmp_path, "swish", [
        helper.make_node("Sigmoid", ["x"], ["s"], name="sig"),
        helper.make_node("Mul", ["x", "s"], ["y"], name="mul"),
    ], [("x", TensorProto.FLOAT, F23)], [("y", TensorProto.FLOAT, F23)], domains=())
    xml = _convert(model, tmp_path / "ir", write_ext(tmp_path, "ext", SWISH, layout))
    text = xml.read_text()
    assert 'name="mul" type="Swish"' in text and "Multiply" not in text and "Sigmoid" not in text
    x = np.linspace(-3, 3, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_run(xml, x), x / (1 + np.exp(-x)), rtol=1e-5)


# -- a middle pass after MiddleStart (data nodes, inferred shapes) and a back pass after it ---

MIDDLE_BACK = {
    "middle/mark_relu.py": """
        from {EXT}.middle.pass_separator import MiddleFinish, MiddleStart
        from {MO}.middle.replacement import MiddleReplacementPattern


        class MarkRelu(MiddleReplacementPattern):
            enabled = True

            def run_after(self):
                return [MiddleStart]

            def run_before(self):
                return [MiddleFinish]

            def pattern(self):
                return dict(
                    nodes=[('relu', dict(kind='op', op='ReLU')), ('relu_data', dict(kind='data'))],
                    edges=[('relu', 'relu_data', {'out': 0})],
                )

            def replace_pattern(self, graph, match):
                shape = match['relu_data'].shape
                match['relu']['legacy_mark'] = 'relu_{}x{}'.format(shape[2], shape[3])
    """,
    "back/rename_marked.py": """
        from {EXT}.back.pass_separator import BackStart
        from {MO}.back.replacement import BackReplacementPattern
        from {MO}.graph.graph import Graph, rename_nodes


        class RenameMarked(BackReplacementPattern):
            enabled = True
            run_not_recursively = True

            def run_after(self):
                return [BackStart]

            def find_and_replace_pattern(self, graph: Graph):
                for node in graph.get_op_nodes(type='ReLU'):
                    if node.has_valid('legacy_mark'):
                        rename_nodes([(node, node.legacy_mark)])
    """,
}


def test_middle_and_back_passes(tmp_path: Path, relu_add_model: Path, layout) -> None:
    xml = _convert(relu_add_model, tmp_path / "ir", write_ext(tmp_path, "ext", MIDDLE_BACK, layout))
    assert 'name="relu_4x4" type="ReLU"' in xml.read_text()
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 4)).astype(np.float32)
    bias = np.arange(3, dtype=np.float32).reshape(1, 3, 1, 1)
    np.testing.assert_allclose(_run(xml, x), np.maximum(x, 0) + bias)


# -- a user extractor overrides the built-in translator for a standard op ---------------------

RELU_AS_ELU = {
    "front/onnx/relu_ext.py": """
        from {MO}.front.extractor import FrontExtractorOp
        from {EXT}.ops.activation_ops import Elu


        class ReluFrontExtractor(FrontExtractorOp):
            op = 'Relu'
            enabled = True

            @classmethod
            def extract(cls, node):
                Elu.update_node_stat(node, {'alpha': 0.0})
                return cls.enabled
    """,
}


def test_user_extractor_overrides_builtin(tmp_path: Path, relu_add_model: Path, layout) -> None:
    xml = _convert(relu_add_model, tmp_path / "ir", write_ext(tmp_path, "ext", RELU_AS_ELU, layout))
    text = xml.read_text()
    assert 'type="Elu"' in text and 'type="ReLU"' not in text and 'alpha="0"' in text
    x = np.random.default_rng(1).standard_normal((1, 3, 4, 4)).astype(np.float32)
    bias = np.arange(3, dtype=np.float32).reshape(1, 3, 1, 1)
    np.testing.assert_allclose(_run(xml, x), np.maximum(x, 0) + bias)


# -- errors ----------------------------------------------------------------------------------


def _one_line_error(tmp_path: Path, model: Path, files: dict, layout, kind=ExtensionError) -> str:
    with pytest.raises(kind) as info:
        _convert(model, tmp_path / "ir", write_ext(tmp_path, "bad", files, layout))
    msg = str(info.value)
    assert "\n" not in msg
    return msg


def test_unsupported_module_names_the_name_file_and_line(tmp_path, relu_add_model, layout) -> None:
    msg = _one_line_error(tmp_path, relu_add_model, {"front/tf_native.py": """
        from {MO}.front.extractor import FrontExtractorOp
        from {MO}.front.tf.partial_infer.tf import tf_subgraph_infer
    """}, layout)
    want = f"'tf_subgraph_infer' from {layout[0]}.front.tf.partial_infer.tf is not supported"
    assert f"bad/front/tf_native.py:2: {want}" in msg


def test_missing_name_in_supported_module(tmp_path, relu_add_model, layout) -> None:
    msg = _one_line_error(tmp_path, relu_add_model, {"ops/helper.py": """
        import numpy as np

        from {MO}.ops.op import Op, NoSuchHelper
    """}, layout)
    assert f"bad/ops/helper.py:3: 'NoSuchHelper' from {layout[0]}.ops.op is not supported" in msg


def test_legacy_error_is_one_line(tmp_path, relu_add_model, layout) -> None:
    msg = _one_line_error(tmp_path, relu_add_model, {"front/onnx/relu_ext.py": """
        from {MO}.front.extractor import FrontExtractorOp
        from {MO}.utils.error import Error
        from {MO}.utils.utils import refer_to_faq_msg


        class ReluFrontExtractor(FrontExtractorOp):
            op = 'Relu'
            enabled = True

            @staticmethod
            def extract(node):
                raise Error('Relu node "{}" is not\\nsupported here. ' + refer_to_faq_msg(45),
                            node.name)
    """}, layout, kind=ExtgenError)
    assert msg == 'Relu node "relu" is not supported here. (legacy Model Optimizer FAQ #45)'


def test_duplicate_ids_and_cycles_are_clear_errors(tmp_path, relu_add_model, layout) -> None:
    dup = _one_line_error(tmp_path, relu_add_model, {"front/dup.py": """
        from {MO}.front.common.replacement import FrontReplacementPattern


        class First(FrontReplacementPattern):
            enabled = True
            id = 'same_id'

            def find_and_replace_pattern(self, graph):
                pass


        class Second(FrontReplacementPattern):
            enabled = True
            id = 'same_id'

            def find_and_replace_pattern(self, graph):
                pass
    """}, layout)
    assert "share the id 'same_id'" in dup
    cyc = _one_line_error(tmp_path / "c", relu_add_model, {"middle/cycle.py": """
        from {EXT}.middle.pass_separator import MiddleStart
        from {MO}.middle.replacement import MiddleReplacementPattern


        class A(MiddleReplacementPattern):
            enabled = True

            def run_after(self):
                return [MiddleStart, B]

            def find_and_replace_pattern(self, graph):
                pass


        class B(MiddleReplacementPattern):
            enabled = True

            def run_after(self):
                return [A]

            def find_and_replace_pattern(self, graph):
                pass
    """}, layout)
    assert "cycle: A -> B" in cyc or "cycle: B -> A" in cyc


# -- the hook leaves nothing behind ------------------------------------------------------------


def test_legacy_roots_exist_only_during_conversion(tmp_path: Path) -> None:
    model = _save(tmp_path, "my_elu", [helper.make_node(
        "MyElu", ["x"], ["y"], name="elu", domain="my.domain", alpha=0.5)],
        [("x", TensorProto.FLOAT, F23)], [("y", TensorProto.FLOAT, F23)])
    _convert(model, tmp_path / "ir", write_ext(tmp_path, "ext", MY_ELU, ("openvino.tools.mo",) * 2))
    leftovers = [m for m in sys.modules if m.split(".")[0] in ("mo", "extensions")
                 or m.startswith("openvino.tools.mo")]
    assert leftovers == []
    import openvino
    import openvino.tools

    assert openvino is ov and Path(openvino.__file__).parent.name == "openvino"
    assert not hasattr(openvino.tools, "mo")
    assert importlib.util.find_spec("openvino.tools.mo") is None
    with pytest.raises(ModuleNotFoundError):
        import mo  # noqa: F401
