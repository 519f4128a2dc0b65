"""A file the converter cannot parse is reported by its name (and line) and what is wrong, never
by its content: a flag pointed at the wrong file (`--caffe_parser_path ~/.netrc`) must not
print a secret from it. Each case points one parser or flag at a file holding a secret token,
in a few shapes (a bare token, `key: value`, quoted, JSON, a .proto, XML), and checks stdout
and stderr."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path

import onnx
import pytest

from extgen.cli import main
from tests.fuzz_models import caffe_model, kaldi_model, mxnet_model, onnx_model, tf_model

SECRET = "SECRET_7f3a9c1e"
CONTENTS = {
    "token": f"{SECRET}\n",
    "key-value": f"token: {SECRET}\n{SECRET}: 1\n",
    "quoted": f'name: "{SECRET}"\nlayer {{ {SECRET} }}\n',
    "json": json.dumps({"token": SECRET, "nodes": [{"op": SECRET, "inputs": SECRET}],
                        "ops": [{"name": SECRET}]}),
    "proto": f"syntax = \"{SECRET}\";\nmessage {SECRET} {{ {SECRET} x = 1; }}\n",
    "symbol-json": json.dumps({"nodes": [{"op": "null", "name": SECRET, "inputs": [[SECRET]]}]}),
    "json-list": json.dumps([{"id": "a", "match_kind": SECRET, SECRET: 1}]),
    "xml": f'<{SECRET}><CustomLayer NativeType="{SECRET}"/></{SECRET}>',
    "kaldi": f"<Nnet> {SECRET} <{SECRET}>\n",
    "kaldi-token": f"<{SECRET}> <Nnet>\n",
    "nnet3": f"<Nnet3>\ninput-node name=input dim=4\n"
             f"output-node name=output input=Append({SECRET}:{SECRET}\n\n",
}


def _convert(model: Path, *flags: str) -> list[str]:
    return ["convert", "--input_model", str(model), "-o", str(model.parent / "o"), *flags]


# name -> (the secret file's name, argv given the folder and the secret file)
Case = Callable[[Path, Path], list[str]]
CASES: dict[str, tuple[str, Case]] = {
    "caffe_parser_path": ("secret.txt", lambda d, s: _convert(
        caffe_model(d), "--caffe_parser_path", str(s))),
    "input_proto": ("secret.prototxt", lambda d, s: _convert(
        caffe_model(d), "--input_proto", str(s))),
    "caffemodel": ("secret.caffemodel", lambda d, s: _convert(
        s, "--input_proto", str(caffe_model(d).with_suffix(".prototxt")))),
    "mean_file": ("secret.binaryproto", lambda d, s: _convert(
        caffe_model(d), "--mean_file", str(s))),
    "custom_layers_mapping": ("secret.xml", lambda d, s: _convert(
        caffe_model(d), "--custom_layers_mapping", str(s))),
    "tf_pbtxt": ("secret.pbtxt", lambda d, s: _convert(s)),
    "tf_pb": ("secret.pb", lambda d, s: _convert(s)),
    "transformations_config": ("secret.json", lambda d, s: _convert(
        tf_model(d / "m.pb"), "--transformations_config", str(s))),
    "config_update": ("secret.json", lambda d, s: _convert(
        tf_model(d / "m.pb"), "--tensorflow_custom_operations_config_update", str(s))),
    "input_meta_graph": ("secret.meta", lambda d, s: [
        "convert", "--input_meta_graph", str(s), "-o", str(d / "o")]),
    "mxnet_symbol": ("secret-symbol.json", lambda d, s: _convert(
        mxnet_model(d), "--input_symbol", str(s), "--input_shape", "[1,3,8,8]")),
    "mxnet_params": ("secret.params", lambda d, s: _convert(s, "--input_shape", "[1,3,8,8]")),
    "onnx": ("secret.onnx", lambda d, s: _convert(s)),
    "kaldi_nnet": ("secret.nnet", lambda d, s: _convert(s)),
    "kaldi_counts": ("secret.counts", lambda d, s: _convert(
        kaldi_model(d / "m.nnet"), "--counts", str(s))),
    "extgen_config": ("secret.json", lambda d, s: [
        "new", "--config", str(s), "--output_dir", str(d / "o")]),
    "ir_xml": ("secret.xml", lambda d, s: ["run", "--model", str(s), "--input", "random"]),
}


@pytest.mark.parametrize("content", list(CONTENTS))
@pytest.mark.parametrize("case", list(CASES))
def test_error_names_the_file_not_its_content(tmp_path: Path, case: str, content: str) -> None:
    file_name, argv = CASES[case]
    secret = tmp_path / file_name
    secret.write_text(CONTENTS[content])
    onnx.save(onnx_model(), tmp_path / "unused.onnx")  # a folder like a user's
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(argv(tmp_path, secret))
    assert code == 2, (code, err.getvalue())
    assert SECRET not in err.getvalue() + out.getvalue(), err.getvalue()
    assert secret.name in err.getvalue(), err.getvalue()
