"""TensorFlow Lite through the command line: `extgen convert m.tflite` picks the TFLite front by
the suffix; a custom op (TF's converter with allow_custom_ops) goes `check` -> `new` ->
`convert --extensions` -> `run` and matches TensorFlow in the shim and in OpenVINO; what
extgen refuses (a builtin it lacks, control flow into subgraphs, a corrupt or truncated file)
is one line naming the file or the op."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from converter.front.tflite.flexbuffer import read_flexbuffer
from converter.front.tflite.model import read_model
from extgen.cli import main
from tests.tflite_models import CUSTOM, CUSTOM_WITH_OPTIONS, materialize


def _error_line(capsys, code: int) -> str:
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_convert_picks_tflite_by_suffix(tmp_path: Path, capsys) -> None:
    folder = materialize("mlp")
    assert main(["convert", str(folder / "model.tflite"), "--output_dir", str(tmp_path)]) == 0
    assert "SUCCESS" in capsys.readouterr().out
    out = tmp_path / "out.npz"
    name = read_model(folder / "model.tflite").inputs[0].name
    assert main(["run", str(tmp_path / "model.xml"), "--input",
                 f"{name}={folder / 'input.npy'}", "--output", str(out)]) == 0
    with np.load(out) as got:
        (value,) = got.values()
    np.testing.assert_allclose(value, np.load(folder / "expected.npy"), rtol=1e-2, atol=1e-3)


def test_the_custom_op_model_holds_a_custom_op_code() -> None:
    (op,) = [op for op in read_model(materialize(CUSTOM) / "model.tflite").operators
             if not op.builtin]
    assert op.op == "Cosh"
    assert isinstance(read_flexbuffer(op.custom_options), dict)


def test_check_new_convert_run_on_a_custom_op(tmp_path: Path, capsys) -> None:
    folder = materialize(CUSTOM)
    model = folder / "model.tflite"
    assert main(["check", str(model), "--output_dir", str(tmp_path)]) == 1
    assert "- Cosh: 1 node(s)" in capsys.readouterr().out
    config = json.loads((tmp_path / "cosh.extgen.json").read_text())
    assert "mo-tflite-ext" in config["targets"]
    assert config["ops"][0]["framework_types"] == {"tflite": "Cosh"}
    # as a user fills it in, under a name of their own: the extractor maps the custom_code
    config["ops"][0].update(name="HypCosine", expression="(exp(x) + exp(-x)) / 2")
    (tmp_path / "filled.json").write_text(json.dumps(config))
    assert main(["new", "--config", str(tmp_path / "filled.json"), "--output_dir",
                 str(tmp_path / "ext")]) == 0
    ext = tmp_path / "ext" / "user_mo_extensions"
    assert main(["convert", "--input_model", str(model), "--extensions", str(ext),
                 "--output_dir", str(tmp_path / "ir"), "--compress_to_fp16=False"]) == 0
    assert 'type="HypCosine"' in (tmp_path / "ir" / "model.xml").read_text()
    name = read_model(model).inputs[0].name
    for engine in ("shim", "openvino"):
        out = tmp_path / f"{engine}.npz"
        assert main(["run", str(tmp_path / "ir" / "model.xml"), "--input",
                     f"{name}={folder / 'input.npy'}", "--extension", str(ext), "--engine",
                     engine, "--output", str(out)]) == 0
        with np.load(out) as got:
            (value,) = got.values()
        np.testing.assert_allclose(value, np.load(folder / "expected.npy"), rtol=1e-5,
                                   atol=1e-6, err_msg=engine)


def test_the_generated_extractor_reads_the_custom_options(tmp_path: Path, capsys) -> None:
    """TF's Cumprod as a custom op keeps its attributes in the custom options (a FlexBuffer):
    `check` lists them, and the generated extractor gives the IR the model's values, not the
    config's defaults."""
    model = materialize(CUSTOM_WITH_OPTIONS) / "model.tflite"
    assert main(["check", str(model), "--output_dir", str(tmp_path)]) == 1
    assert "exclusive: bool = True" in capsys.readouterr().out
    config = json.loads((tmp_path / "cumprod.extgen.json").read_text())
    for attribute in config["ops"][0]["attributes"]:
        if attribute["type"] == "bool":
            attribute["default"] = False
    (tmp_path / "filled.json").write_text(json.dumps(config))
    assert main(["new", "--config", str(tmp_path / "filled.json"), "--output_dir",
                 str(tmp_path / "ext")]) == 0
    assert main(["convert", "--input_model", str(model), "--extensions",
                 str(tmp_path / "ext" / "user_mo_extensions"), "--output_dir",
                 str(tmp_path / "ir")]) == 0
    xml = (tmp_path / "ir" / "model.xml").read_text()
    assert 'type="Cumprod"' in xml and 'exclusive="true"' in xml and 'reverse="true"' in xml


def test_without_its_extension_the_custom_op_is_named(tmp_path: Path, capsys) -> None:
    model = materialize(CUSTOM) / "model.tflite"
    line = _error_line(capsys, main(["convert", str(model), "--output_dir", str(tmp_path)]))
    assert "Cosh" in line and "--mo-tflite-ext" in line


def test_an_unsupported_builtin_is_named_with_its_index(tmp_path: Path, capsys) -> None:
    model = materialize("cumsum") / "model.tflite"
    line = _error_line(capsys, main(["convert", str(model), "--output_dir", str(tmp_path)]))
    assert "TensorFlow Lite builtin op CUMSUM (operator 0)" in line


def test_control_flow_into_subgraphs_is_refused(tmp_path: Path, capsys) -> None:
    model = materialize("while_loop") / "model.tflite"
    line = _error_line(capsys, main(["convert", str(model), "--output_dir", str(tmp_path)]))
    assert str(model) in line and "(WHILE)" in line and "subgraphs" in line


@pytest.mark.parametrize("cut", [12, 200, 3000])
def test_a_truncated_file_is_one_line(tmp_path: Path, capsys, cut: int) -> None:
    data = (materialize("cnn") / "model.tflite").read_bytes()
    model = tmp_path / "cut.tflite"
    model.write_bytes(data[:cut])
    line = _error_line(capsys, main(["convert", str(model), "--output_dir", str(tmp_path)]))
    assert str(model) in line and "corrupt" in line


@pytest.mark.parametrize("command", ["convert", "check"])
def test_a_file_of_another_kind_is_one_line(tmp_path: Path, capsys, command: str) -> None:
    model = tmp_path / "m.tflite"
    model.write_bytes(b"\x1c\x00\x00\x00ABCD not a model here")
    line = _error_line(capsys, main([command, str(model), "--output_dir", str(tmp_path / "o")]))
    assert str(model) in line and "not a TensorFlow Lite model" in line
    assert "ABCD" not in line
