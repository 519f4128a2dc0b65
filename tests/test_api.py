"""extgen's Python API: convert_model with the CLI's option names and defaults, returning an
openvino.Model (or, without openvino, IR files save_model writes), equal to the CLI's IR."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

import extgen
from converter.options import ConvertOptions
from converter.pipeline import convert
from extgen.cli import main

X = np.random.default_rng(0).standard_normal((1, 3, 4, 4)).astype(np.float32)


def _cli(model: Path, out: Path, *flags: str) -> Path:
    assert main(["convert", str(model), "--output_dir", str(out), *flags]) == 0
    return out / f"{model.stem}.xml"


def _run(model) -> np.ndarray:
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled([X])[compiled.output(0)]


def test_convert_model_returns_a_model_openvino_runs_equal_to_the_cli_s(relu_add_model,
                                                                        tmp_path) -> None:
    model = extgen.convert_model(str(relu_add_model))  # a str, the CLI's defaults (FP16)
    assert isinstance(model, ov.Model)
    cli = _cli(relu_add_model, tmp_path / "cli")
    assert 'element_type="f16"' in cli.read_text()
    np.testing.assert_array_equal(_run(model), _run(str(cli)))
    saved = extgen.save_model(model, tmp_path / "api" / "m")
    assert saved == tmp_path / "api" / "m.xml"
    np.testing.assert_array_equal(_run(str(saved)), _run(str(cli)))


def test_options_take_python_values_as_the_cli_takes_text(relu_add_model, tmp_path) -> None:
    model = extgen.convert_model(relu_add_model, input_shape=[1, 3, 4, 4],
                                 mean_values={"x": [1, 2, 3]}, scale_values=[2.0, 4.0, 8.0],
                                 reverse_input_channels=True, compress_to_fp16=False)
    cli = _cli(relu_add_model, tmp_path, "--input_shape", "[1,3,4,4]", "--mean_values",
               "x[1,2,3]", "--scale_values", "[2.0,4.0,8.0]", "--reverse_input_channels",
               "--compress_to_fp16=False")
    np.testing.assert_array_equal(_run(model), _run(str(cli)))


def test_a_misspelled_option_is_one_line_with_a_guess(relu_add_model) -> None:
    with pytest.raises(extgen.ExtgenError, match="no option 'input_shap'; did you mean "
                                                 "input_shape\\?"):
        extgen.convert_model(relu_add_model, input_shap=[1, 3, 4, 4])
    with pytest.raises(extgen.ExtgenError, match="reverse_input_channels takes True or False"):
        extgen.convert_model(relu_add_model, reverse_input_channels="yes")
    with pytest.raises(extgen.ExtgenError, match="no such model file"):
        extgen.convert_model("missing.onnx")


def test_without_openvino_the_ir_files_are_returned_and_saved_as_the_cli_writes_them(
        relu_add_model, tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "openvino", None)  # `import openvino` fails
    model = extgen.convert_model(relu_add_model)
    assert isinstance(model, extgen.api.IRModel)
    saved = extgen.save_model(model, tmp_path / "api" / "relu_add.xml")
    cli = tmp_path / "cli"
    monkeypatch.undo()
    _cli(relu_add_model, cli)
    assert saved.read_bytes() == (cli / "relu_add.xml").read_bytes()
    assert saved.with_suffix(".bin").read_bytes() == (cli / "relu_add.bin").read_bytes()


def test_convert_options_take_str_paths(relu_add_model, tmp_path) -> None:
    result = convert(ConvertOptions(str(relu_add_model), output_dir=str(tmp_path),
                                    extensions=[]))
    assert result.xml == tmp_path / "relu_add.xml" and result.xml.is_file()
