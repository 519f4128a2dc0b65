"""A 3,000-deep text message or symbol JSON: one 'nested too deeply' line, no RecursionError."""

from __future__ import annotations

from pathlib import Path

import pytest

from converter.front.mxnet.params import write_ndarray_file
from extgen.cli import main
from tests.front.test_caffe import user_proto

DEPTH = 3000


def _pbtxt() -> str:
    inner = 'func { name: "f" attr { key: "k" value { ' * DEPTH + "} } }" * DEPTH
    return f'node {{ name: "c" op: "Const" attr {{ key: "v" value {{ {inner} }} }} }}\n'


def _prototxt() -> str:
    deep = "x { " * DEPTH + "}" * DEPTH
    return f'name: "n"\nlayer {{ name: "l" type: "Input" deep_param {{ {deep} }} }}\n'


def _symbol_json() -> str:
    """Deeper than the others: Python 3.13's json reads 3000 levels."""
    deep = 100 * DEPTH
    return '{"nodes": ' + "[" * deep + "]" * deep + ', "heads": []}'


@pytest.mark.parametrize(("name", "text", "extra"), [
    ("deep.pbtxt", _pbtxt(), ()),
    ("deep.prototxt", _prototxt(), ("--framework", "caffe")),
    ("deep-symbol.json", _symbol_json(), ("--framework", "mxnet")),
], ids=["tf-pbtxt", "caffe-prototxt", "mxnet-symbol"])
def test_deep_nesting_is_one_line(tmp_path: Path, capsys, name: str, text: str, extra) -> None:
    path = tmp_path / name
    path.write_text(text)
    model = path
    if name.endswith(".prototxt"):  # a user caffe.proto with a recursive message
        model = tmp_path / "deep.caffemodel"
        model.write_bytes(b"")
        proto = user_proto(tmp_path / "p", "message Deep { optional Deep x = 1; }",
                           "  optional Deep deep_param = 9999;")
        extra = (*extra, "--caffe_parser_path", str(proto))
    if name.endswith(".json"):
        model = tmp_path / "deep-0000.params"
        write_ndarray_file(model, {})  # weights are read first: an empty, valid file
    code = main(["convert", "--input_model", str(model), "-o", str(tmp_path / "o"), *extra])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "internal error" not in err, err
    assert "nested too deeply" in lines[0]
