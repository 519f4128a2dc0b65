"""Legacy MO extractors for Caffe (a native layer through merge_attrs, a Python layer through
CaffePythonFrontExtractorOp), TensorFlow (node.pb.attr with the TF helpers) and MXNet
(get_mxnet_layer_attrs on node.symbol_dict), through every legacy import root."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov

from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.legacy.conftest import write_ext

ELU_OP = {
    "ops/legacy_elu.py": """
        from {MO}.front.common.partial_infer.elemental import copy_shape_infer
        from {MO}.ops.op import Op


        class LegacyEluOp(Op):
            op = 'LegacyElu'

            def __init__(self, graph, attrs):
                mandatory_props = dict(type='Elu', op=self.op, version='opset1',
                                       infer=copy_shape_infer, in_ports_count=1, out_ports_count=1)
                super().__init__(graph, mandatory_props, attrs)

            def supported_attrs(self):
                return ['alpha']
    """,
}


def _run(xml: Path, x: np.ndarray) -> np.ndarray:
    compiled = ov.Core().compile_model(str(xml), "CPU")
    return compiled([x])[compiled.output(0)]


def _elu(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(x > 0, x, alpha * (np.exp(x) - 1))


CAFFE = {
    **ELU_OP,
    "front/caffe/elu_ext.py": """
        from {MO}.front.caffe.collect_attributes import merge_attrs
        from {MO}.front.extractor import FrontExtractorOp
        from ext.ops.legacy_elu import LegacyEluOp


        class ELUFrontExtractor(FrontExtractorOp):
            op = 'ELU'
            enabled = True

            @classmethod
            def extract(cls, node):
                param = node.pb.elu_param
                LegacyEluOp.update_node_stat(node, merge_attrs(param, {'alpha': param.alpha}))
                return cls.enabled
    """,
    "front/caffe/neg_ext.py": """
        from {MO}.front.extractor import CaffePythonFrontExtractorOp


        class NegPythonFrontExtractor(CaffePythonFrontExtractorOp):
            op = 'mylayers.NegLayer'
            enabled = True

            @classmethod
            def extract(cls, node):
                attrs = CaffePythonFrontExtractorOp.parse_param_str(node.pb.python_param.param_str)
                node['legacy_factor'] = float(attrs['factor'])
                return cls.enabled
    """,
    "front/caffe/neg_replacer.py": """
        import numpy as np

        from {MO}.front.common.replacement import FrontReplacementOp
        from {MO}.ops.const import Const
        from {EXT}.ops.elementwise import Mul


        class NegLayerReplacer(FrontReplacementOp):
            op = 'mylayers.NegLayer'
            enabled = True

            def replace_op(self, graph, node):
                value = np.array(node.legacy_factor, np.float32)
                factor = Const(graph, {'value': value}).create_node()
                mul = Mul(graph, {'name': node.name}).create_node([(factor, 0)])
                node.in_port(0).get_connection().set_destination(mul.in_port(1))
                return [mul.id]
    """,
}

NET = """
name: "legacy"
input: "data"
input_shape { dim: 2 dim: 3 }
layer { name: "elu" type: "ELU" bottom: "data" top: "elu" elu_param { alpha: 0.3 } }
layer { name: "neg" type: "Python" bottom: "elu" top: "out"
  python_param { module: "mylayers" layer: "NegLayer" param_str: "'factor': -2" } }
"""


def test_caffe_legacy_extractors(tmp_path: Path, layout) -> None:
    from tests.front.test_caffe import write_model

    model = write_model(tmp_path, "net", NET, {})
    ext = write_ext(tmp_path, "ext", CAFFE, layout)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    assert 'type="Elu"' in xml.read_text() and 'alpha="0.3' in xml.read_text()
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_run(xml, x), -2 * _elu(x, 0.3), rtol=1e-5)


TF = {
    **ELU_OP,
    "front/tf/my_elu_ext.py": """
        from {MO}.front.extractor import FrontExtractorOp
        from {MO}.front.tf.extractors.utils import tf_dtype_extractor
        from ext.ops.legacy_elu import LegacyEluOp


        class MyEluFrontExtractor(FrontExtractorOp):
            op = 'MyElu'
            enabled = True

            @staticmethod
            def extract(node):
                attrs = {'alpha': node.pb.attr['alpha'].f,
                         'data_type': tf_dtype_extractor(node.pb.attr['T'].type)}
                LegacyEluOp.update_node_stat(node, attrs)
                return __class__.enabled
    """,
}


def test_tf_legacy_extractor(tmp_path: Path, layout) -> None:
    from converter.front.tf.writer import GraphBuilder

    g = GraphBuilder()
    x = g.placeholder("x", [2, 3])
    g.node("MyElu", "my_elu", [x], T=np.float32, alpha=0.25)
    model = g.save(tmp_path / "model.pb")
    ext = write_ext(tmp_path, "ext", TF, layout)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    assert 'type="Elu"' in xml.read_text()
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_run(xml, x), _elu(x, 0.25), rtol=1e-5)


PY_ELU = {
    "ops/py_elu.py": """
        from {MO}.front.caffe.extractor import register_caffe_python_extractor
        from {MO}.front.common.partial_infer.elemental import copy_shape_infer
        from {MO}.ops.op import Op


        class PyEluOp(Op):
            op = 'PyElu'

            def __init__(self, graph, attrs):
                mandatory_props = dict(type='Elu', op=__class__.op, version='opset1',
                                       infer=copy_shape_infer)
                super().__init__(graph, mandatory_props, attrs)

            def supported_attrs(self):
                return ['alpha']


        register_caffe_python_extractor(PyEluOp, 'mylayers.EluLayer')
    """,
}


def test_caffe_python_layer_registered_by_op(tmp_path: Path, layout) -> None:
    from tests.front.test_caffe import write_model

    net = NET.split('layer {')[0] + (
        'layer { name: "elu" type: "Python" bottom: "data" top: "out"\n'
        '  python_param { module: "mylayers" layer: "EluLayer" param_str: "\'alpha\': 0.5" } }\n')
    model = write_model(tmp_path, "net", net, {})
    ext = write_ext(tmp_path, "ext", PY_ELU, layout)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_run(xml, x), _elu(x, 0.5), rtol=1e-5)


MXNET = {
    **ELU_OP,
    "front/mxnet/my_elu_ext.py": """
        from {MO}.front.extractor import FrontExtractorOp
        from {MO}.front.mxnet.extractors.utils import get_mxnet_layer_attrs
        from ext.ops.legacy_elu import LegacyEluOp


        class MyEluFrontExtractor(FrontExtractorOp):
            op = 'MyElu'
            enabled = True

            @classmethod
            def extract(cls, node):
                attrs = get_mxnet_layer_attrs(node.symbol_dict)
                LegacyEluOp.update_node_stat(node, {'alpha': attrs.float('slope', 1.0)})
                return cls.enabled
    """,
}


def test_mxnet_legacy_extractor(tmp_path: Path, layout) -> None:
    from converter.front.mxnet.params import write_ndarray_file
    from converter.front.mxnet.symbol import SymbolBuilder

    sym = SymbolBuilder()
    out = sym.op("MyElu", "my_elu", [sym.var("data")], slope="0.5")
    sym.save(tmp_path / "net-symbol.json", [out])
    write_ndarray_file(tmp_path / "net-0000.params", {})
    ext = write_ext(tmp_path, "ext", MXNET, layout)
    xml = convert(ConvertOptions(tmp_path / "net-0000.params", output_dir=tmp_path / "ir",
                                 extensions=[ext], input_shape=[(2, 3)])).xml
    assert 'type="Elu"' in xml.read_text()
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_run(xml, x), _elu(x, 0.5), rtol=1e-5)
