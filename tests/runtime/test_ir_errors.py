"""Malformed IR XML read by `extgen run`: one ModelFormatError line naming the file and layer."""

from __future__ import annotations

from pathlib import Path

import pytest

from converter.options import ConvertOptions
from converter.pipeline import convert
from extgen.cli import main


@pytest.fixture
def relu_add_ir(relu_add_model: Path, tmp_path: Path) -> Path:
    return convert(ConvertOptions(relu_add_model, output_dir=tmp_path / "ir")).xml


def _run_error(capsys, xml: Path) -> str:
    code = main(["run", "--model", str(xml)])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "internal error" not in err, err
    return lines[0]


@pytest.mark.parametrize(("old", "new", "needle"), [
    ('element_type="f32" shape="1,3,1,1"', 'shape="1,3,1,1"', "has no element_type"),
    ('element_type="f32" shape="1,3,1,1"', 'element_type="q7" shape="1,3,1,1"', "'q7'"),
    ('offset="0"', 'offset="-8"', "offset '-8'"),
    ('offset="0"', 'offset="zero"', "offset 'zero'"),
    ('size="12"', 'size="-12"', "size '-12'"),
    ('<layer id="1"', '<layer id="0"', "duplicate layer id 0"),
    ('from-port="0" to-layer', 'from-port="7" to-layer', "port 7, which does not exist"),
    ('to-port="0" />', 'to-port="5" />', "port 5, which does not exist"),
    ('version="11"', 'version="eleven"', "IR version 'eleven'"),
], ids=["no-element-type", "unknown-element-type", "negative-offset", "text-offset",
        "negative-size", "duplicate-id", "edge-from-missing-port", "edge-to-missing-port",
        "version"])
def test_bad_const_or_layer(relu_add_ir: Path, capsys, old: str, new: str, needle: str) -> None:
    text = relu_add_ir.read_text()
    assert old in text
    relu_add_ir.write_text(text.replace(old, new, 1))
    line = _run_error(capsys, relu_add_ir)
    assert str(relu_add_ir) in line and needle in line


def test_a_bad_layer_names_its_line(relu_add_ir: Path, capsys) -> None:
    text = relu_add_ir.read_text().replace('offset="0"', 'offset="-8"', 1)
    relu_add_ir.write_text(text)
    layer_start = text[: text.index('offset="-8"')].rindex("<layer ")
    line = _run_error(capsys, relu_add_ir)
    assert f"{relu_add_ir}:{text.count(chr(10), 0, layer_start) + 1}: layer " in line


def test_dtd_entity_is_refused_in_one_line(relu_add_ir: Path, capsys) -> None:
    text = relu_add_ir.read_text()
    head, rest = text.split("\n", 1)
    relu_add_ir.write_text(f'{head}\n<!DOCTYPE net [<!ENTITY x "y">]>\n{rest}')
    line = _run_error(capsys, relu_add_ir)
    assert "must not declare a DTD or entities" in line


@pytest.fixture
def custom_op_ir(relu_add_ir: Path) -> Path:
    """relu_add's Relu renamed to an op only an extension provides."""
    text = relu_add_ir.read_text()
    custom = text.replace('type="ReLU" version="opset1"', 'type="MyRelu" version="extension"')
    relu_add_ir.write_text(custom)
    return relu_add_ir


def test_openvino_custom_op_without_extension(custom_op_ir: Path, capsys) -> None:
    code = main(["run", "--model", str(custom_op_ir), "--engine", "openvino", "--input", "random"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "OpenVINO does not know op MyRelu" in err[0] and "libuser_cpu_extension.so" in err[0]


def test_openvino_given_the_shim_library(custom_op_ir: Path, tmp_path: Path, capsys) -> None:
    shim_lib = tmp_path / "libuser_cpu_extension_abi.so"
    shim_lib.write_bytes(b"\x7fELF not really")
    code = main(["run", "--model", str(custom_op_ir), "--engine", "openvino",
                 "--extension", str(shim_lib)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert f"--extension {shim_lib}: OpenVINO cannot load it" in err[0]
    assert "shim's library" in err[0] and "libuser_cpu_extension.so" in err[0]
