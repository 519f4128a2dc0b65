"""Bad Caffe input through `extgen convert`: one clear line, exit status 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.front.caffe.proto import net_class
from extgen.cli import main
from tests.front.test_caffe import write_model

NET = """name: "n"
input: "data"
input_shape { dim: 1 dim: 2 dim: 4 dim: 4 }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 2 kernel_size: 1 } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
"""
WEIGHTS = {"conv": [np.ones((2, 2, 1, 1), np.float32), np.zeros(2, np.float32)]}


def _convert(capsys, tmp_path: Path, *argv: str) -> str:
    code = main(["convert", *argv, "-o", str(tmp_path / "ir")])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, err
    assert not (tmp_path / "ir").exists() or not any((tmp_path / "ir").iterdir())
    return lines[0]


@pytest.mark.parametrize("cut", [0.5, 0.97, -1])
def test_corrupt_caffemodel(tmp_path: Path, capsys, cut: float) -> None:
    model = write_model(tmp_path, "n", NET, WEIGHTS)
    data = model.read_bytes()
    model.write_bytes(b"\xff\xff\xff\xff garbage" if cut < 0 else data[: int(len(data) * cut)])
    line = _convert(capsys, tmp_path, "--input_model", str(model))
    assert "n.caffemodel" in line and ("caffemodel" in line.split(":", 1)[1] or "weights" in line)


def test_empty_caffemodel(tmp_path: Path, capsys) -> None:
    model = write_model(tmp_path, "n", NET, WEIGHTS)
    model.write_bytes(b"")
    assert "not a valid .caffemodel" in _convert(capsys, tmp_path, "--input_model", str(model))


def test_missing_prototxt(tmp_path: Path, capsys) -> None:
    model = write_model(tmp_path, "n", NET, WEIGHTS)
    (tmp_path / "n.prototxt").unlink()
    line = _convert(capsys, tmp_path, "--input_model", str(model))
    assert "n.prototxt" in line and "--input_proto" in line


def test_missing_caffemodel_for_a_prototxt(tmp_path: Path, capsys) -> None:
    model = write_model(tmp_path, "n", NET, WEIGHTS)
    model.unlink()
    line = _convert(capsys, tmp_path, "--input_model", str(tmp_path / "n.prototxt"))
    assert ".caffemodel" in line


def test_prototxt_syntax_error_names_the_line(tmp_path: Path, capsys) -> None:
    model = write_model(tmp_path, "n", NET, WEIGHTS)
    broken = NET.replace('top: "conv"\n  conv', 'top: "conv"\n  conv {{', 1)
    (tmp_path / "n.prototxt").write_text(broken)
    line = _convert(capsys, tmp_path, "--input_model", str(model))
    assert "n.prototxt:5:" in line


def test_unknown_layer_parameter_suggests_caffe_parser_path(tmp_path: Path, capsys) -> None:
    model = write_model(tmp_path, "n", NET, WEIGHTS)
    cosh = 'layer { name: "c" type: "Cosh" bottom: "conv" top: "c"\n  cosh_param { scale: 2 } }\n'
    (tmp_path / "n.prototxt").write_text(NET + cosh)
    line = _convert(capsys, tmp_path, "--input_model", str(model))
    assert "n.prototxt:8:" in line and "cosh_param" in line and "--caffe_parser_path" in line


def test_unsupported_layer_listed_with_scaffold_command(tmp_path: Path, capsys) -> None:
    net = NET + 'layer { name: "t1" type: "Frob" bottom: "conv" top: "t1" }\n'
    net += 'layer { name: "t2" type: "Frob" bottom: "t1" top: "t2" }\n'
    model = write_model(tmp_path, "n", net, WEIGHTS)
    line = _convert(capsys, tmp_path, "--input_model", str(model))
    assert "Frob (nodes t1, t2)" in line and "extgen new --mo-caffe-ext" in line


def test_missing_weights_name_the_layer(tmp_path: Path, capsys) -> None:
    model = write_model(tmp_path, "n", NET, {})
    line = _convert(capsys, tmp_path, "--input_model", str(model))
    assert "layer 'conv' (Convolution)" in line


def test_undefined_bottom_blob(tmp_path: Path, capsys) -> None:
    net = NET.replace('bottom: "conv" top: "conv"', 'bottom: "nope" top: "conv"')
    model = write_model(tmp_path, "n", net, WEIGHTS)
    line = _convert(capsys, tmp_path, "--input_model", str(model))
    assert "'relu'" in line and "'nope'" in line


def test_bad_custom_layers_mapping(tmp_path: Path, capsys) -> None:
    model = write_model(tmp_path, "n", NET, WEIGHTS)
    mapping = tmp_path / "map.xml"
    mapping.write_text("<CustomKernelsMapping>\n"
                       "  <CustomLayer NativeType='ReLU' hasParam='true'/>\n"
                       "</CustomKernelsMapping>\n")
    line = _convert(capsys, tmp_path, "--input_model", str(model), "-k", str(mapping))
    assert "map.xml" in line and "protoParamName" in line


def test_caffe_parser_path_without_a_proto(tmp_path: Path, capsys) -> None:
    model = write_model(tmp_path, "n", NET, WEIGHTS)
    (tmp_path / "empty").mkdir()
    line = _convert(capsys, tmp_path, "--input_model", str(model),
                    "--caffe_parser_path", str(tmp_path / "empty"))
    assert "--caffe_parser_path" in line and "caffe.proto" in line


def test_caffemodel_text_that_is_not_utf8(tmp_path: Path, capsys) -> None:
    """A flipped byte in a layer name of the .caffemodel: one line naming the file and field."""
    model = write_model(tmp_path, "n", NET, WEIGHTS)
    raw = model.read_bytes()
    at = raw.index(b"\x04conv") + 1
    model.write_bytes(raw[:at] + b"\xc3" + raw[at + 1:])
    line = _convert(capsys, tmp_path, "--input_model", str(model))
    assert "n.caffemodel" in line and "layer[0].name" in line and "UTF-8" in line


@pytest.mark.parametrize("dims", [[-2, -4], [1 << 32, 1 << 32], [1] * 40])
def test_blob_shape_no_array_has(tmp_path: Path, capsys, dims: list[int]) -> None:
    """A blob shape with negative dims, or whose int64 product wraps to the count of values
    given, or of 40 dims: one error line, not an internal one."""
    model = write_model(tmp_path, "n", NET, WEIGHTS)
    cls = net_class()
    net = cls()
    net.ParseFromString(model.read_bytes())
    blob = net.layer[0].blobs[0]
    del blob.shape.dim[:]
    blob.shape.dim.extend(dims)
    if dims[0] == 1 << 32:
        del blob.data[:]
    model.write_bytes(net.SerializeToString())
    line = _convert(capsys, tmp_path, "--input_model", str(model))
    assert "weights blob" in line and "conv" in line
