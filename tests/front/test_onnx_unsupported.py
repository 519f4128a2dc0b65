"""A standard ONNX op the converter lacks is named as such ("ONNX op X (opset N) is not supported
yet"), by `extgen convert` and `extgen check`; scaffolding a custom op is offered as a workaround
only. A custom-domain op keeps the plain "needs an extension" diagnosis."""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper

from converter.front.onnx.translator import REGISTRY
from extgen.cli import main
from tests.conftest import make_model
from tests.front.test_onnx_errors import convert_error

LACKED = "TfIdfVectorizer"  # a standard op with no translator


def _model(tmp_path: Path, custom: bool) -> Path:
    nodes = [helper.make_node(LACKED, ["x"], ["y"], name="tfidf", mode="TF", min_gram_length=1,
                              max_gram_length=1, max_skip_count=0, ngram_counts=[0],
                              ngram_indexes=[0], pool_int64s=[1])]
    outputs = [("y", TensorProto.FLOAT, None)]
    if custom:
        nodes.append(helper.make_node("Blur", ["x"], ["z"], name="blur", domain="my.domain"))
        outputs.append(("z", TensorProto.FLOAT, None))
    model = make_model(nodes, [("x", TensorProto.INT64, [2, 3])], outputs, opset=14,
                       domains=["my.domain"] if custom else [])
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    return path


def test_the_lacked_op_is_standard_and_has_no_translator() -> None:
    assert onnx.defs.has(LACKED) and REGISTRY.find(LACKED) is None


def test_convert_names_a_standard_op_as_not_supported_yet(tmp_path: Path, capsys) -> None:
    line = convert_error(capsys, _model(tmp_path, custom=False))
    assert f"ONNX op {LACKED} (opset 14) is not supported yet (node tfidf)" in line
    assert "workaround" in line and "extgen new --mo-onnx-ext" in line
    assert "op type is not supported" not in line


def test_convert_tells_standard_and_custom_ops_apart(tmp_path: Path, capsys) -> None:
    line = convert_error(capsys, _model(tmp_path, custom=True))
    assert f"ONNX op {LACKED} (opset 14) is not supported yet (node tfidf)" in line
    assert "1 op type is not supported: my.domain::Blur (node blur)" in line
    assert "ONNX op my.domain" not in line


def test_check_marks_the_standard_op(tmp_path: Path, capsys) -> None:
    assert main(["check", str(_model(tmp_path, custom=True)), "--output_dir",
                 str(tmp_path / "c")]) == 1  # the model has gaps
    out = capsys.readouterr().out
    assert f"ONNX op {LACKED} (opset 14) is not supported yet (a standard op extgen lacks)" in out
    assert out.count("is not supported yet") == 1  # not for my.domain::Blur
    assert len(list((tmp_path / "c").glob("*.extgen.json"))) == 2  # the workaround stays
