"""Bad TensorFlow input through `extgen convert`: one clear line, exit status 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.front.tf.writer import GraphBuilder
from extgen.cli import main
from tests.fuzz_models import tf_model

F32 = np.float32


def _convert(capsys, tmp_path: Path, *argv: str) -> str:
    out = tmp_path / "o"
    code = main(["convert", *argv, "-o", str(out)])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 2 and len(err) == 1, err
    assert not out.exists() or not any(out.iterdir())
    return err[0]


def test_missingtf_model(tmp_path: Path, capsys) -> None:
    line = _convert(capsys, tmp_path, "--input_model", str(tmp_path / "nope.pb"))
    assert "nope.pb" in line and "no such model file" in line


@pytest.mark.parametrize("cut", [0.3, 0.77, -1])
def test_truncated_or_corrupt_pb(tmp_path: Path, capsys, cut: float) -> None:
    data = tf_model(tmp_path / "good.pb").read_bytes()
    bad = tmp_path / "bad.pb"
    bad.write_bytes(data[: int(len(data) * cut)] if cut > 0 else b"\x0a\xff\xff\xff\x0fgarbage")
    line = _convert(capsys, tmp_path, "--input_model", str(bad))
    assert "bad.pb" in line


def test_empty_pb(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty.pb").write_bytes(b"")
    line = _convert(capsys, tmp_path, "--input_model", str(tmp_path / "empty.pb"))
    assert "holds no nodes" in line


def test_pbtxt_syntax_error_names_the_line(tmp_path: Path, capsys) -> None:
    text = tf_model(tmp_path / "good.pbtxt").read_text().splitlines()
    text[5] = text[5] + " {{ oops"
    bad = tmp_path / "bad.pbtxt"
    bad.write_text("\n".join(text))
    line = _convert(capsys, tmp_path, "--input_model", str(bad))
    assert "bad.pbtxt:6:" in line and "text-format GraphDef" in line


def test_pbtxt_unknown_field_names_the_line(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.pbtxt"
    bad.write_text('node {\n  name: "x"\n  op: "Placeholder"\n  colour: 3\n}\n')
    line = _convert(capsys, tmp_path, "--input_model", str(bad))
    assert "bad.pbtxt:4:" in line and "a field name message tensorflow.NodeDef" in line
    assert "colour" not in line  # the file's words are not echoed


def test_input_names_a_missing_node(tmp_path: Path, capsys) -> None:
    g = GraphBuilder()
    g.node("Relu", "y", [g.placeholder("x", [2]) + ":0", ], T=F32)
    g.node("Add", "z", ["y", "ghost:1", "^also_ghost_but_control"], T=F32)
    line = _convert(capsys, tmp_path, "--input_model", str(g.save(tmp_path / "m.pb")))
    assert "'ghost:1'" in line and "node 'z'" in line


def test_const_with_wrong_content_size(tmp_path: Path, capsys) -> None:
    g = GraphBuilder()
    c = g.const("c", np.ones((2, 2), F32))
    g.graph_def.node[0].attr["value"].tensor.tensor_content = b"\0" * 5
    g.node("Add", "y", [g.placeholder("x", [2, 2]), c], T=F32)
    line = _convert(capsys, tmp_path, "--input_model", str(g.save(tmp_path / "m.pb")))
    assert "Const node 'c'" in line and "5 bytes" in line


def _filled(dims: list[int], *, content: bytes = b"", values: int = 1):
    """A Const's tensor: float32 of shape dims, given by content or by `values` float_vals."""
    def mutate(tensor) -> None:
        tensor.ClearField("tensor_content")
        del tensor.tensor_shape.dim[:]
        for d in dims:
            tensor.tensor_shape.dim.add(size=d)
        tensor.tensor_content = content
        tensor.float_val.extend([1.0] * (0 if content else values))
    return mutate


@pytest.mark.parametrize(("mutate", "needle"), [
    (_filled([-1, 2]), "negative"),
    (_filled([2, -3], values=6), "negative"),
    (_filled([10**6, 10**6]), "would fill 3725.3 GiB"),
    (_filled([2**32, 2**32], values=0), "would fill"),
    (_filled([1] * 40), "40 dimensions"),
    (_filled([4, 4], content=b"\0" * 8), "holds 8 bytes of content, expected 64"),
], ids=["neg-dim", "neg-dim-values", "huge-fill", "int64-wrap", "rank-40", "short-content"])
def test_const_shape_the_file_does_not_back(tmp_path: Path, capsys, mutate, needle) -> None:
    """A Const's declared shape is checked before anything is allocated for it."""
    g = GraphBuilder()
    c = g.const("c", np.ones((2, 2), F32))
    mutate(g.graph_def.node[0].attr["value"].tensor)
    g.node("Add", "y", [g.placeholder("x", [2, 2]), c], T=F32)
    line = _convert(capsys, tmp_path, "--input_model", str(g.save(tmp_path / "m.pb")))
    assert "Const node 'c'" in line and needle in line


def test_missing_transformations_config(tmp_path: Path, capsys) -> None:
    model = tf_model(tmp_path / "m.pb")
    line = _convert(capsys, tmp_path, "--input_model", str(model), "--transformations_config",
                    str(tmp_path / "nope.json"))
    assert "nope.json" in line and "no such file" in line


def test_input_shape_count_mismatch(tmp_path: Path, capsys) -> None:
    model = tf_model(tmp_path / "m.pb")
    line = _convert(capsys, tmp_path, "--input_model", str(model),
                    "--input_shape", "[1,4,4,2],[1,2]")
    assert "--input_shape" in line
