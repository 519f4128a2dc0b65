"""Corrupt ONNX initializers and attributes: one ModelFormatError line naming the tensor/node."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from extgen.cli import main
from tests.conftest import make_model


def conv_model() -> onnx.ModelProto:
    """x[1,3,8,8] -> Conv(w[4,3,3,3]) -> y."""
    return make_model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
        [("x", TensorProto.FLOAT, [1, 3, 8, 8])], [("y", TensorProto.FLOAT, None)],
        {"w": np.ones((4, 3, 3, 3), np.float32)},
    )


def convert_error(capsys, path: Path, *flags: str) -> str:
    """Convert `path`; assert exit 2 with one stderr line and return it."""
    code = main(["convert", "--input_model", str(path), "-o", str(path.parent / "o"), *flags])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("[ ERROR ] "), err
    assert "internal error" not in err
    return lines[0]


def _set(field: str, value) -> Callable[[TensorProto], None]:
    def mutate(t: TensorProto) -> None:
        if field == "dims":
            t.dims[0] = value
        else:
            setattr(t, field, value)
    return mutate


def _external(offset: str = "0", location: str = "w.bin", length: str | None = None):
    def mutate(t: TensorProto) -> None:
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        entries = {"location": location, "offset": offset}
        if length is not None:
            entries["length"] = length
        for key, value in entries.items():
            t.external_data.add(key=key, value=value)
    return mutate


@pytest.mark.parametrize(("mutate", "needle"), [
    (lambda t: setattr(t, "raw_data", t.raw_data + b"1234"), "does not match dims"),
    (lambda t: setattr(t, "raw_data", t.raw_data[:10]), "does not match dims"),
    (_set("dims", -1), "negative dimension"),
    (_set("dims", 1 << 40), "too large"),
    (_set("data_type", 0), "unknown data_type 0"),
    (_set("data_type", 999), "unknown data_type 999"),
    (_external(offset="-4"), "offset '-4'"),
    (_external(length="-5"), "length '-5'"),
    (_external(offset="x"), "offset 'x'"),
    (_external(location="w\0.bin"), "location"),
], ids=["raw-long", "raw-short", "neg-dim", "huge-dim", "type-0", "type-999", "ext-neg-offset",
        "ext-neg-length", "ext-text-offset", "ext-nul"])
def test_bad_initializer(tmp_path: Path, capsys, mutate, needle: str) -> None:
    model = conv_model()
    (tmp_path / "w.bin").write_bytes(model.graph.initializer[0].raw_data)
    mutate(model.graph.initializer[0])
    onnx.save(model, tmp_path / "m.onnx")
    line = convert_error(capsys, tmp_path / "m.onnx")
    assert "initializer 'w'" in line and needle in line


def test_attribute_of_the_wrong_type(tmp_path: Path, capsys) -> None:
    model = make_model(
        [helper.make_node("Transpose", ["x"], ["y"], name="tr", perm="abc")],
        [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, None)],
    )
    onnx.save(model, tmp_path / "m.onnx")
    line = convert_error(capsys, tmp_path / "m.onnx")
    assert "node 'tr' (Transpose): attribute 'perm' is STRING" in line and "INTS" in line


@pytest.mark.parametrize("command", ["convert", "check"])
@pytest.mark.parametrize(("text", "field"), [("Conv", "graph.node[0].op_type"),
                                              ("conv", "graph.node[0].name")])
def test_text_that_is_not_utf8(tmp_path: Path, capsys, command: str, text: str,
                               field: str) -> None:
    """One flipped byte in a string field: one line naming the file and the field."""
    raw = conv_model().SerializeToString()
    at = raw.index(b"\x04" + text.encode()) + 1  # the field's length, then its bytes
    (tmp_path / "m.onnx").write_bytes(raw[:at] + b"\xc3" + raw[at + 1:])
    argv = (["convert", "--input_model", str(tmp_path / "m.onnx"), "-o", str(tmp_path / "o")]
            if command == "convert" else ["check", str(tmp_path / "m.onnx")])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("[ ERROR ] ") and err.count("\n") == 1, err
    assert "m.onnx" in err and field in err and "UTF-8" in err
