"""--extensions folders: user extractors and ops, front replacements, override order, errors."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from extgen.errors import ExtensionError
from tests.conftest import make_model


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def _custom_model(tmp_path: Path) -> Path:
    model = make_model(
        [helper.make_node("AddRelu", ["x", "y"], ["z"], name="fused", domain="my.domain",
                          alpha=2.5)],
        [("x", TensorProto.FLOAT, [2, 3]), ("y", TensorProto.FLOAT, [2, 3])],
        [("z", TensorProto.FLOAT, [2, 3])], domains=["my.domain"],
    )
    path = tmp_path / "custom.onnx"
    onnx.save(model, path)
    return path


EXTRACTOR_AND_OP = {
    "ext/ops/add_relu.py": """
        from converter.ops.op import Op

        class AddReluOp(Op):
            op = "AddRelu"
            type = "AddRelu"
            version = "my_opset"
            in_ports_count = 2
            attr_types = {"alpha": "float"}
    """,
    "ext/front/onnx/add_relu_ext.py": """
        from converter.front.extractor import FrontExtractorOp
        from converter.front.onnx.attrs import onnx_attr
        from ext.ops.add_relu import AddReluOp

        class AddReluExtractor(FrontExtractorOp):
            op = "my.domain::AddRelu"
            enabled = True

            @classmethod
            def extract(cls, node):
                AddReluOp.update_node_stat(node, {"alpha": onnx_attr(node, "alpha", "f", 1.0)})
                return cls.enabled
    """,
}


def test_user_extractor_and_op_emit_custom_layer(tmp_path: Path) -> None:
    ext = _write(tmp_path, EXTRACTOR_AND_OP) / "ext"
    result = convert(ConvertOptions(_custom_model(tmp_path), output_dir=tmp_path / "ir",
                                    extensions=[ext]))
    xml = result.xml.read_text()
    assert 'type="AddRelu" version="my_opset"' in xml
    assert 'alpha="2.5"' in xml


REPLACER = {
    "ext2/front/onnx/add_relu_replacer.py": """
        from converter.front.replacement import FrontReplacementOp
        from converter.ops.op import Op

        class AddReluDecompose(FrontReplacementOp):
            op = "my.domain::AddRelu"
            enabled = True

            def replace_op(self, graph, node):
                add_op, relu_op = Op.get_op_class_by_name("Add"), Op.get_op_class_by_name("ReLU")
                add = add_op(graph, {"name": node.name + "/add"}).create_node(
                    [node.in_port(0).get_source(), node.in_port(1).get_source()])
                relu = relu_op(graph, {"name": node.name + "/relu"}).create_node([add])
                return [relu.id]
    """,
}


def test_front_replacement_op_runs_in_openvino(tmp_path: Path) -> None:
    import openvino as ov

    ext = _write(tmp_path, REPLACER) / "ext2"
    result = convert(ConvertOptions(_custom_model(tmp_path), output_dir=tmp_path / "ir",
                                    extensions=[ext]))
    compiled = ov.Core().compile_model(str(result.xml), "CPU")
    x, y = np.array([[-1, 2, -3], [4, -5, 6]], np.float32), np.ones((2, 3), np.float32)
    np.testing.assert_allclose(compiled([x, y])[compiled.output("z")], np.maximum(x + y, 0))


def test_later_folder_overrides_earlier_and_scope_resets(tmp_path: Path) -> None:
    first = _write(tmp_path, EXTRACTOR_AND_OP) / "ext"
    second = _write(tmp_path, {
        "later/front/onnx/add_relu_ext.py": EXTRACTOR_AND_OP["ext/front/onnx/add_relu_ext.py"]
        .replace('onnx_attr(node, "alpha", "f", 1.0)', "7.0"),
    }) / "later"
    model = _custom_model(tmp_path)
    result = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[first, second]))
    assert 'alpha="7"' in result.xml.read_text()
    from extgen.errors import UnsupportedOpError

    with pytest.raises(UnsupportedOpError):  # the extensions are gone after the conversion
        convert(ConvertOptions(model, output_dir=tmp_path / "ir2"))


def test_cyclic_transformations_are_a_clear_error(tmp_path: Path, relu_add_model: Path) -> None:
    ext = _write(tmp_path, {"cyc/front/cycle.py": """
        from converter.front.replacement import FrontReplacementPattern

        class A(FrontReplacementPattern):
            def run_after(self):
                return [B]
            def find_and_replace_pattern(self, graph):
                pass

        class B(FrontReplacementPattern):
            def run_after(self):
                return [A]
            def find_and_replace_pattern(self, graph):
                pass
    """}) / "cyc"
    with pytest.raises(ExtensionError, match="cycle: A -> B|cycle: B -> A"):
        convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir", extensions=[ext]))


def test_broken_extension_names_file_and_line(tmp_path: Path, relu_add_model: Path) -> None:
    ext = _write(tmp_path, {"bad/ops/broken.py": "import os\nraise RuntimeError('boom')\n"}) / "bad"
    with pytest.raises(ExtensionError, match=r"broken\.py:2: .*boom"):
        convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir", extensions=[ext]))


def test_op_class_without_extractor_warns_about_dropped_attributes(tmp_path: Path, caplog) -> None:
    caplog.set_level("WARNING", logger="extgen")  # whatever level an earlier test left
    ext = _write(tmp_path, {"ext/ops/add_relu.py": EXTRACTOR_AND_OP["ext/ops/add_relu.py"]})
    convert(ConvertOptions(_custom_model(tmp_path), output_dir=tmp_path / "ir",
                           extensions=[ext / "ext"]))
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1, warnings
    assert "node 'fused'" in warnings[0] and "attribute(s) alpha" in warnings[0]
    assert "AddReluOp" in warnings[0] and "extgen new --mo-onnx-ext" in warnings[0]


def test_extractor_named_like_a_builtin_op_is_reported(tmp_path: Path, relu_add_model: Path,
                                                       caplog) -> None:
    caplog.set_level("WARNING", logger="extgen")  # whatever level an earlier test left
    ext = _write(tmp_path, {
        "ext/front/onnx/cosh_ext.py": """
            from converter.front.extractor import FrontExtractorOp

            class CoshExtractor(FrontExtractorOp):
                op = "Cosh"
                enabled = True
        """,
        "ext/ops/relu.py": """
            from converter.ops.op import Op

            class MyRelu(Op):
                op = "ReLU"
        """,
    })
    xml = convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir",
                                 extensions=[ext / "ext"])).xml
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "extractor CoshExtractor" in warnings[0]
    assert "binds to the built-in op Cosh" in warnings[0]
    # MyRelu (op "ReLU") replaces nothing: the model's Relu is still the built-in ReLU-1
    relu = next(la for la in ET.parse(xml).getroot().iter("layer") if la.get("name") == "relu")
    assert (relu.get("type"), relu.get("version")) == ("ReLU", "opset1")


def test_an_op_of_its_own_version_named_like_a_builtin_is_not_reported(
        tmp_path: Path, relu_add_model: Path, caplog) -> None:
    """A custom Cosh of version "extension" is a distinct op (as in OpenVINO): no warning that
    it shadows the standard Cosh-1, which it does not replace."""
    ext = _write(tmp_path, {
        "ext/ops/cosh.py": """
            from converter.ops.op import Op

            class Cosh(Op):
                op = type = "Cosh"
                version = "extension"
        """,
    })
    convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir", extensions=[ext / "ext"]))
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
