"""MXNet front end: the .params format (every layout round-trips), MO-style attribute access, and
bad input (corrupt .params, missing or broken -symbol.json, no input shape, unknown ops), each
one clear line and exit status 2 through `extgen convert`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.front.mxnet.attrs import get_mxnet_layer_attrs
from converter.front.mxnet.params import load_params, read_ndarray_file, write_ndarray_file
from converter.front.mxnet.symbol import SymbolBuilder
from extgen.cli import main
from extgen.errors import ModelFormatError


@pytest.mark.parametrize("version", ["v1", "v2", "v3", "legacy"])
def test_params_round_trip_every_layout_and_type(tmp_path: Path, version: str) -> None:
    arrays = {
        "arg:w": np.arange(24, dtype=np.float32).reshape(2, 3, 4),
        "arg:d": np.linspace(0, 1, 5),
        "aux:h": np.array([1.5, -2], np.float16),
        "arg:u": np.array([[1, 255]], np.uint8),
        "arg:i": np.array([-7], np.int32), "arg:b": np.array([-3, 4], np.int8),
        "arg:l": np.array([1 << 40], np.int64),
    }
    path = tmp_path / "p.params"
    write_ndarray_file(path, arrays, version=version)
    back = read_ndarray_file(path)
    assert list(back) == list(arrays)
    for name, value in arrays.items():
        assert back[name].dtype == value.dtype and back[name].shape == value.shape
        np.testing.assert_array_equal(back[name], value)
    args, aux = load_params(path)
    assert set(args) == {"w", "d", "u", "i", "b", "l"} and set(aux) == {"h"}


def test_params_header_layout_is_mxnets(tmp_path: Path) -> None:
    path = tmp_path / "p.params"
    write_ndarray_file(path, {"arg:x": np.array([1.0, 2.0], np.float32)})
    raw = path.read_bytes()
    head = np.frombuffer(raw[:24], "<u8")
    assert list(head) == [0x112, 0, 1]
    assert np.frombuffer(raw[24:28], "<u4")[0] == 0xF993FAC9  # V2 magic
    assert raw.endswith(b"\x05\x00\x00\x00\x00\x00\x00\x00arg:x")


@pytest.mark.parametrize("cut", [0, 10, 30, -3])
def test_corrupt_params_raise_one_error(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "p.params"
    write_ndarray_file(path, {"arg:x": np.ones((3, 3), np.float32)})
    data = path.read_bytes()
    path.write_bytes(data[:cut] if cut else b"garbage" * 5)
    with pytest.raises(ModelFormatError, match="not a valid MXNet .params file"):
        read_ndarray_file(path)


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda raw: raw.replace(b"arg:x", b"arg:\xc3"), "the name of array 0 is not valid UTF-8"),
    (lambda raw: raw.replace(np.array([3, 3], "<i8").tobytes(),
                             np.array([1 << 32, 1 << 32], "<i8").tobytes()), "needs"),
], ids=["name-not-utf8", "dims-past-the-file"])
def test_params_the_file_does_not_back(tmp_path: Path, edit, needle: str) -> None:
    """A name that is not text, dims whose bytes the file lacks (their int64 product wraps to
    0): one error, nothing allocated from the declared size."""
    path = tmp_path / "p.params"
    write_ndarray_file(path, {"arg:x": np.ones((3, 3), np.float32)})
    path.write_bytes(edit(path.read_bytes()))
    with pytest.raises(ModelFormatError, match=needle):
        read_ndarray_file(path)


def test_attr_dictionary_reads_mxnet_strings() -> None:
    attrs = get_mxnet_layer_attrs({"op": "Convolution", "name": "c", "attrs": {
        "kernel": "(3, 3)", "stride": "[2,2]", "pad": "(1,)", "num_filter": "16", "no_bias": "True",
        "eps": "0.001", "flag": "0", "axis": "None", "dtype": "float16", "empty": "()"}})
    assert attrs.tuple("kernel", int) == (3, 3) and attrs.tuple("stride", int) == (2, 2)
    assert attrs.tuple("pad", int) == (1,) and attrs.tuple("empty", int, (0, 0)) == (0, 0)
    assert attrs.int("num_filter") == 16 and attrs.float("eps") == 1e-3
    assert attrs.bool("no_bias") is True and attrs.bool("flag") is False
    assert attrs.int("axis", 5) == 5 and attrs.int("missing") is None
    assert attrs.has("kernel") and not attrs.has("dilate")
    assert attrs.str("kernel") == "(3, 3)" and attrs.dtype("dtype") == np.float16
    assert attrs.list("kernel", int) == [3, 3]
    assert get_mxnet_layer_attrs({"param": {"a": "1"}}).int("a") == 1
    assert get_mxnet_layer_attrs({"attr": {"a": "2"}}).int("a") == 2


# -- bad input through the CLI ---------------------------------------------------------------------
def _model(folder: Path, prefix: str = "net") -> Path:
    sym = SymbolBuilder()
    x = sym.var("data")
    y = sym.op("FullyConnected", "fc", [x, sym.var("fc_weight")], num_hidden=2, no_bias=True)
    sym.save(folder / f"{prefix}-symbol.json", [y])
    params = folder / f"{prefix}-0000.params"
    write_ndarray_file(params, {"arg:fc_weight": np.ones((2, 3), np.float32)})
    return params


def _convert(capsys, *argv: str) -> tuple[int, str]:
    code = main(["convert", *argv])
    return code, capsys.readouterr().err


def _one_line(code: int, err: str, *needles: str) -> None:
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_good_model_converts(tmp_path: Path, capsys) -> None:
    code, err = _convert(capsys, "-m", str(_model(tmp_path)), "--input_shape", "[1,3]",
                         "-o", str(tmp_path / "ir"))
    assert code == 0, err
    assert (tmp_path / "ir" / "net-0000.xml").is_file()


@pytest.mark.parametrize("damage", ["truncate", "garbage", "magic"])
def test_corrupt_params(tmp_path: Path, capsys, damage: str) -> None:
    params = _model(tmp_path)
    data = params.read_bytes()
    params.write_bytes({"truncate": data[:-7], "garbage": b"\x00\x01" * 9,
                        "magic": b"\x13" + data[1:]}[damage])
    code, err = _convert(capsys, "-m", str(params), "--input_shape", "[1,3]",
                         "-o", str(tmp_path / "o"))
    _one_line(code, err, "net-0000.params", "not a valid MXNet .params file")
    assert not (tmp_path / "o").exists()


def test_missing_symbol_file(tmp_path: Path, capsys) -> None:
    params = _model(tmp_path)
    (tmp_path / "net-symbol.json").unlink()
    code, err = _convert(capsys, "-m", str(params), "--input_shape", "[1,3]",
                         "-o", str(tmp_path / "o"))
    _one_line(code, err, "net-symbol.json", "no such MXNet symbol file", "--input_symbol")


def test_input_symbol_flag_names_the_symbol(tmp_path: Path, capsys) -> None:
    params = _model(tmp_path)
    moved = tmp_path / "elsewhere.json"
    (tmp_path / "net-symbol.json").rename(moved)
    code, err = _convert(capsys, "-m", str(params), "--input_symbol", str(moved),
                         "--input_shape", "[1,3]", "-o", str(tmp_path / "ir"))
    assert code == 0, err
    code, err = _convert(capsys, "-m", str(params), "--input_symbol", str(tmp_path / "nope.json"),
                         "--input_shape", "[1,3]", "-o", str(tmp_path / "o"))
    _one_line(code, err, "nope.json", "no such MXNet symbol file")


def test_params_name_without_epoch(tmp_path: Path, capsys) -> None:
    params = _model(tmp_path)
    plain = params.rename(tmp_path / "weights.params")
    code, err = _convert(capsys, "-m", str(plain), "--input_shape", "[1,3]",
                         "-o", str(tmp_path / "o"))
    _one_line(code, err, "weights.params", "<prefix>-<epoch>.params", "--input_symbol")


def test_symbol_json_syntax_error_names_the_line(tmp_path: Path, capsys) -> None:
    params = _model(tmp_path)
    sym = tmp_path / "net-symbol.json"
    lines = sym.read_text().splitlines()
    lines[6] = lines[6] + " ,,"
    sym.write_text("\n".join(lines))
    code, err = _convert(capsys, "-m", str(params), "--input_shape", "[1,3]",
                         "-o", str(tmp_path / "o"))
    _one_line(code, err, "net-symbol.json:7:", "not valid JSON")


@pytest.mark.parametrize("text, needle", [
    ('{"nodes": []}', "no 'nodes' list"),
    (('{"nodes": [{"op": "null", "name": "x", "inputs": []},'
     ' {"op": "relu", "name": "r", "inputs": [[5, 0, 0]]}], "heads": [[1, 0, 0]]}'),
     "an input refers to node 5, the file has 2"),
    (('{"nodes": [{"op": "relu", "name": "r", "inputs": [[1, 0, 0]]},'
     ' {"op": "null", "name": "x", "inputs": []}], "heads": [[0, 0, 0]]}'),
     "topologically sorted"),
    ('[1, 2]', "no 'nodes' list"),
    (('{"nodes": [{"op": "null", "name": "x", "inputs": []},'
     ' {"op": "relu", "name": "r", "inputs": [[0, 0, 0]]}], "heads": [[1, 1000000000, 0]]}'),
     "reads output 1000000000 of node 1, which has at most 4096 outputs"),
    (('{"nodes": [{"op": "null", "name": "x", "inputs": []},'
     ' {"op": "relu", "name": "r", "inputs": [[0, 3, 0]]}], "heads": [[1, 0, 0]]}'),
     "node 1: an input reads output 3 of node 0, which has one output"),
])
def test_malformed_symbol(tmp_path: Path, capsys, text: str, needle: str) -> None:
    params = _model(tmp_path)
    (tmp_path / "net-symbol.json").write_text(text)
    code, err = _convert(capsys, "-m", str(params), "--input_shape", "[1,3]",
                         "-o", str(tmp_path / "o"))
    _one_line(code, err, "net-symbol.json", needle)


def test_missing_input_shape_names_the_input(tmp_path: Path, capsys) -> None:
    code, err = _convert(capsys, "-m", str(_model(tmp_path)), "-o", str(tmp_path / "o"))
    _one_line(code, err, "'data'", "--input_shape")
    code, err = _convert(capsys, "-m", str(_model(tmp_path)), "--input", "data[1,3]",
                         "-o", str(tmp_path / "ir"))
    assert code == 0, err


def test_missing_params_file(tmp_path: Path, capsys) -> None:
    code, err = _convert(capsys, "-m", str(tmp_path / "gone-0000.params"), "--framework", "mxnet",
                         "-o", str(tmp_path / "o"))
    _one_line(code, err, "gone-0000.params")


def test_unsupported_op_lists_the_scaffold_command(tmp_path: Path, capsys) -> None:
    sym = SymbolBuilder()
    x = sym.var("data")
    y = sym.op("Frobnicate", "frob", [x])
    z = sym.op("Custom", "mine", [y], op_type="my_custom")
    sym.save(tmp_path / "u-symbol.json", [z])
    write_ndarray_file(tmp_path / "u-0000.params", {})
    code, err = _convert(capsys, "-m", str(tmp_path / "u-0000.params"), "--input_shape", "[2]",
                         "-o", str(tmp_path / "o"))
    _one_line(code, err, "Frobnicate (node frob)", "my_custom (node mine)",
              "extgen new --mo-mxnet-ext")


def test_bad_attribute_value_is_one_line(tmp_path: Path, capsys) -> None:
    sym = SymbolBuilder()
    y = sym.op("Activation", "act", [sym.var("data")], act_type="swishy")
    sym.save(tmp_path / "a-symbol.json", [y])
    write_ndarray_file(tmp_path / "a-0000.params", {})
    code, err = _convert(capsys, "-m", str(tmp_path / "a-0000.params"), "--input_shape", "[2]",
                         "-o", str(tmp_path / "o"))
    _one_line(code, err, "Activation node 'act'", "act_type swishy")
