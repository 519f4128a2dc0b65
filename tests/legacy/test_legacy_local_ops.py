"""Folders written as the old tutorials wrote them: the op copied into MO's own package and
imported from there (`from mo.ops.cosh import Cosh`), its file in the folder's ops/. The legacy
roots' `ops.<x>` resolve to that file, so such a folder converts unmodified; a copy of one of MO's
own modules elsewhere in a folder does not replace extgen's."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
from onnx import TensorProto, helper

from converter.legacy import legacy_imports
from converter.legacy.importer import add_local_folders
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.legacy.conftest import write_ext

TUTORIAL = {
    "ops/cosh.py": """
        from {MO}.front.common.partial_infer.elemental import copy_shape_infer
        from {MO}.ops.op import Op


        class Cosh(Op):
            op = 'MyCosh'

            def __init__(self, graph, attrs):
                super().__init__(graph, dict(type='Cosh', op=self.op, version='opset1',
                                             infer=copy_shape_infer), attrs)
    """,
    "front/onnx/cosh_ext.py": """
        from {MO}.front.extractor import FrontExtractorOp
        from {EXT}.ops.cosh import Cosh


        class CoshExtractor(FrontExtractorOp):
            op = 'MyCosh'
            enabled = True

            @classmethod
            def extract(cls, node):
                Cosh.update_node_stat(node, {})
                return cls.enabled
    """,
    "front/rebuild_cosh.py": """
        from {MO}.front.common.replacement import FrontReplacementOp


        class RebuildCosh(FrontReplacementOp):
            op = 'MyCosh'
            enabled = True

            def replace_op(self, graph, node):
                from {MO}.ops.cosh import Cosh  # imported while the conversion runs

                new = Cosh(graph, {'name': node.name + '/rebuilt'}).create_node()
                node.in_port(0).get_connection().set_destination(new.in_port(0))
                return [new.id]
    """,
}


def test_tutorial_folder_with_op_in_mo_package_converts(tmp_path: Path, layout) -> None:
    model = tmp_path / "cosh.onnx"
    onnx.save(make_model(
        [helper.make_node("MyCosh", ["x"], ["y"], name="cosh", domain="my.domain")],
        [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 3])],
        domains=("my.domain",)), model)
    ext = write_ext(tmp_path, "tutorial", TUTORIAL, layout)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    ir = xml.read_text()
    assert 'type="Cosh" version="opset1"' in ir and 'cosh/rebuilt' in ir  # the pass ran
    compiled = ov.Core().compile_model(str(xml), "CPU")
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(compiled([x])[compiled.output(0)], np.cosh(x), rtol=1e-6)


def test_local_ops_last_only_inside_the_legacy_block(tmp_path: Path) -> None:
    ext = write_ext(tmp_path, "localops", {"ops/cosh.py": "Cosh = 'mine'\n"}, ("mo", "mo"))
    sys.path.insert(0, str(tmp_path))
    try:
        with legacy_imports():
            add_local_folders([ext])
            from openvino.tools.mo.ops.cosh import Cosh

            assert Cosh == "mine"
        with legacy_imports():
            try:
                from mo.ops.cosh import Cosh  # noqa: F401, F811
            except ImportError:
                pass
            else:
                raise AssertionError("a folder's ops outlived its legacy_imports() block")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("localops.ops.cosh", None)


COPY_BESIDE_A_PASS = {
    # a copy of an MO module that is not an extension (MO never loaded front/common/)
    "front/common/replacement.py": """
        class FrontReplacementPattern:
            enabled = False
    """,
    "front/relu_to_abs.py": """
        from {MO}.front.common.replacement import FrontReplacementPattern
        from {MO}.graph.graph import Graph


        class ReluToAbs(FrontReplacementPattern):
            enabled = True

            def find_and_replace_pattern(self, graph: Graph):
                for node in graph.get_op_nodes(op='ReLU'):
                    node['op'] = node['type'] = 'Abs'
                    node['version'] = 'opset1'
    """,
}


def test_a_copy_of_an_mo_module_does_not_switch_off_the_user_s_pass(
        tmp_path: Path, relu_add_model: Path, layout, caplog) -> None:
    """As in MO, the user's pass gets extgen's FrontReplacementPattern (MO got its own), not the
    folder's copy of front/common/replacement.py; one warning says the copy is not used."""
    ext = write_ext(tmp_path, "ext", COPY_BESIDE_A_PASS, layout)
    xml = convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    types = {layer.get("type") for layer in ET.parse(xml).getroot().iter("layer")}
    assert "Abs" in types and "ReLU" not in types
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    copy = ext / "front" / "common" / "replacement.py"
    assert warnings == [f"{copy}: a copy of MO's front.common.replacement; imports of it "
                        "(FrontReplacementPattern) get extgen's own, as they got MO's in MO, so "
                        "this copy is not used for them"]
