"""Constant folding has a size budget: a tiny model whose constant subgraph would be gigabytes
converts quickly with its big op left in the IR, and that IR still computes the right value."""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from converter.ops.fold_budget import FOLD_BUDGET_BYTES
from extgen.cli import main
from tests.child_env import child_env
from tests.conftest import make_model

ROOT = Path(__file__).resolve().parents[1]


def _expand_max(path: Path, side: int) -> Path:
    """Expand(ones[1,1], [side, side]) -> ReduceMax: a few hundred bytes, side*side*4 folded."""
    model = make_model(
        [helper.make_node("Expand", ["one", "shape"], ["big"], name="expand"),
         helper.make_node("ReduceMax", ["big"], ["y"], name="rmax", keepdims=0)],
        [], [("y", TensorProto.FLOAT, [])],
        {"one": np.ones((1, 1), np.float32), "shape": np.array([side, side], np.int64)},
    )
    onnx.save(model, path)
    return path


def _layer_types(xml: Path) -> list[str]:
    return re.findall(r'<layer [^>]*type="(\w+)"', xml.read_text())


def test_six_gigabyte_fold_stays_an_op(tmp_path: Path) -> None:
    model = _expand_max(tmp_path / "expand.onnx", 40000)
    assert model.stat().st_size < 400
    env = child_env()
    proc = subprocess.run(
        [sys.executable, "-m", "extgen", "convert", "--input_model", str(model), "-o",
         str(tmp_path / "ir"), "--log_level", "INFO"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    seconds = float(re.search(r"Total execution time: ([\d.]+) seconds", proc.stdout).group(1))
    assert seconds < 5  # folding it built a 6 GB array
    peak_mb = float(re.search(r"Memory consumed: (\d+) MB", proc.stdout).group(1))
    assert peak_mb < 1000
    assert "not folding 'expand'" in proc.stderr
    types = _layer_types(tmp_path / "ir" / "expand.xml")
    assert "Broadcast" in types and "ReduceMax" in types  # ONNX Expand is IR Broadcast
    assert (tmp_path / "ir" / "expand.bin").stat().st_size < 1000


def test_unfolded_op_computes_in_openvino(tmp_path: Path, caplog) -> None:
    import openvino as ov

    side = 4200
    assert side * side * 4 > FOLD_BUDGET_BYTES
    model = _expand_max(tmp_path / "expand.onnx", side)
    with caplog.at_level(logging.INFO, logger="extgen.convert"):
        assert main(["convert", "--input_model", str(model), "-o", str(tmp_path / "ir")]) == 0
    assert "constant-folding budget" in caplog.text
    xml = tmp_path / "ir" / "expand.xml"
    assert "Broadcast" in _layer_types(xml)
    compiled = ov.Core().compile_model(str(xml), "CPU")
    assert float(compiled([])[0]) == 1.0


def test_small_constants_still_fold(tmp_path: Path, capsys) -> None:
    model = _expand_max(tmp_path / "expand.onnx", 64)
    assert main(["convert", "--input_model", str(model), "-o", str(tmp_path / "ir")]) == 0
    # the folded value, compressed to f16 (the CLI's default) as ovc writes it
    assert _layer_types(tmp_path / "ir" / "expand.xml") == ["Const", "Convert", "Result"]


def test_an_op_with_evaluate_but_no_shape_inference_still_folds(tmp_path: Path) -> None:
    """A user op that leaves infer_shapes to fill in folds through its evaluate, as before."""
    ext = tmp_path / "ext"
    (ext / "ops").mkdir(parents=True)
    (ext / "ops" / "twice.py").write_text(
        "from converter.ops.op import Op\n\n"
        "class Twice(Op):\n"
        "    op = type = 'Twice'\n"
        "    version = 'extension'\n\n"
        "    @classmethod\n"
        "    def infer_shapes(cls, attrs, shapes, values):\n"
        "        raise NotImplementedError('implement infer_shapes')\n\n"
        "    @classmethod\n"
        "    def evaluate(cls, attrs, inputs):\n"
        "        return [inputs[0] * 2]\n")
    model = make_model(
        [helper.make_node("Twice", ["c"], ["t"], domain="my.domain"),
         helper.make_node("Add", ["x", "t"], ["y"])],
        [("x", TensorProto.FLOAT, [3])], [("y", TensorProto.FLOAT, [3])],
        {"c": np.arange(3, dtype=np.float32)}, domains=["my.domain"])
    onnx.save(model, tmp_path / "m.onnx")
    code = main(["convert", "--input_model", str(tmp_path / "m.onnx"), "--extensions", str(ext),
                 "--output_dir", str(tmp_path / "ir")])
    assert code == 0
    xml = (tmp_path / "ir" / "m.xml").read_text()
    assert 'type="Twice"' not in xml  # folded into a Const
