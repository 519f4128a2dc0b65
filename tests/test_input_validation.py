"""Input that is wrong never becomes an IR: each framework loader's checks and the graph check
before emission (every framework) refuse it with one line, exit status 2, no .xml/.bin."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from extgen.cli import main
from tests.conftest import make_model

F32 = TensorProto.FLOAT


def convert_error(capsys, model: Path) -> str:
    """Convert `model`; assert exit 2, one stderr line, no traceback and nothing written."""
    out = model.parent / "ir"
    code = main(["convert", "--input_model", str(model), "--output_dir", str(out)])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("[ ERROR ] "), err
    assert "Traceback" not in err and "internal error" not in err
    assert not list(out.glob("*.xml")) and not list(out.glob("*.bin"))
    return lines[0]


def _save(tmp_path: Path, model: onnx.ModelProto, name: str = "m.onnx") -> Path:
    onnx.save(model, tmp_path / name)
    return tmp_path / name


def _relu(inputs=(("x", F32, [2, 3]),), outputs=(("y", F32, None),)) -> onnx.ModelProto:
    return make_model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                      list(inputs), list(outputs))


# -- ONNX: what the graph declares -------------------------------------------------------------

def _relu_pair(second_output: str = "y") -> onnx.ModelProto:
    return make_model([helper.make_node("Relu", ["x"], ["y"], name="a"),
                       helper.make_node("Sigmoid", ["x"], [second_output], name="b")],
                      [("x", F32, [2, 3])], [("y", F32, None)])


@pytest.mark.parametrize(("model", "needle"), [
    (_relu(inputs=(("x", F32, [-5, 3]),)),
     "graph input 'x' declares the dimension -5 in its shape [-5, 3]; a dimension is a size "
     ">= 0, or a symbolic name (dim_param) when dynamic: fix the model"),
    (_relu_pair(), "tensor 'y' is written by both node 'a' (Relu) and node 'b' (Sigmoid) "
                   "(corrupt model); give each tensor one producer"),
    (_relu_pair("x"), "tensor 'x' is written by both graph input 'x' and node 'b' (Sigmoid)"),
    (_relu(inputs=(("x", F32, [2, 3]), ("x", F32, [2, 3]))),
     "graph input 'x' is declared twice (corrupt model); give each its own name"),
    (_relu(outputs=(("y", F32, None), ("y", F32, None))),
     "graph output 'y' is declared twice (corrupt model); give each its own name"),
    (make_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                [("x", F32, [2])], [("y", F32, None)], {"w": np.ones(2, np.float32)}),
     "initializer 'w' is declared twice"),
], ids=["negative-dim", "two-producers", "node-writes-input", "two-inputs", "two-outputs",
        "two-initializers"])
def test_onnx_declarations(tmp_path: Path, capsys, model: onnx.ModelProto, needle: str) -> None:
    if needle.startswith("initializer"):
        model.graph.initializer.append(model.graph.initializer[0])
    assert needle in convert_error(capsys, _save(tmp_path, model))


def test_onnx_dynamic_dimensions_convert(tmp_path: Path, capsys) -> None:
    """-1 (what some exporters write) and a symbolic name are dynamic, not wrong."""
    model = _relu(inputs=(("x", F32, ["batch", 3]),))
    model.graph.input[0].type.tensor_type.shape.dim.add().dim_value = -1
    code = main(["convert", "--input_model", str(_save(tmp_path, model)),
                 "--output_dir", str(tmp_path / "ir")])
    assert code == 0, capsys.readouterr().err
    assert 'shape="?,3,?"' in (tmp_path / "ir" / "m.xml").read_text()


def test_onnx_reshape_to_an_absurd_shape(tmp_path: Path, capsys) -> None:
    model = make_model([helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")],
                       [("x", F32, [2, 2])], [("y", F32, None)],
                       {"s": np.array([1 << 40, 0], np.int64)})
    assert "node 'rs' (Reshape)" in convert_error(capsys, _save(tmp_path, model))
