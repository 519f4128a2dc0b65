"""One error path for every frontend: a translator's problem with its node, and an unexpected
exception in a user extractor, each end `extgen convert` with exit status 2 and one line naming
the node (and the extractor's file and line)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from converter.front.mxnet.params import write_ndarray_file
from converter.front.mxnet.symbol import SymbolBuilder
from converter.front.tf.writer import GraphBuilder
from extgen.cli import main
from tests.conftest import make_model
from tests.front.test_caffe import write_model

F32 = np.float32


def _one_line(capsys, model: Path, tmp_path: Path, *argv: str) -> str:
    out = tmp_path / "ir"
    code = main(["convert", "--input_model", str(model), *argv, "-o", str(out)])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, err
    assert not out.exists() or not any(out.iterdir())
    return lines[0]


def _onnx_max_pool(tmp_path: Path) -> Path:
    """storage_order=1 on a 1-D pooling (2-D ones convert: tests/ops/test_max_pool_indices.py)"""
    model = make_model(
        [helper.make_node("MaxPool", ["x"], ["y", "idx"], name="pool", kernel_shape=[2],
                          storage_order=1)],
        [("x", TensorProto.FLOAT, [1, 1, 4])],
        [("y", TensorProto.FLOAT, [1, 1, 2]), ("idx", TensorProto.INT64, [1, 1, 2])],
    )
    path = tmp_path / "pool.onnx"
    onnx.save(model, path)
    return path


def test_onnx_max_pool_storage_order_indices(tmp_path: Path, capsys) -> None:
    line = _one_line(capsys, _onnx_max_pool(tmp_path), tmp_path)
    assert "MaxPool node 'pool'" in line and "storage_order=1" in line
    assert "internal error" not in line


def test_tf_translator_problem(tmp_path: Path, capsys) -> None:
    g = GraphBuilder()
    x = g.placeholder("x", [1, 4, 4, 2])
    size = g.placeholder("size", [2], np.int32)
    g.node("CropAndResize", "crop", [x, g.const("boxes", np.array([[0, 0, 1, 1]], F32)),
                                     g.const("ind", np.array([0], np.int32)), size], T=F32)
    line = _one_line(capsys, g.save(tmp_path / "crop.pb"), tmp_path)
    assert "CropAndResize node 'crop'" in line and "crop_size (input 3)" in line


def test_caffe_translator_problem(tmp_path: Path, capsys) -> None:
    net = """name: "n"
input: "data"
input_shape { dim: 1 dim: 2 dim: 4 dim: 4 }
layer { name: "pool" type: "Pooling" bottom: "data" top: "pool"
  pooling_param { pool: STOCHASTIC kernel_size: 2 stride: 2 } }
"""
    line = _one_line(capsys, write_model(tmp_path, "n", net, {}), tmp_path)
    assert "Pooling node 'pool'" in line and "STOCHASTIC pooling is not supported" in line


def test_mxnet_translator_problem(tmp_path: Path, capsys) -> None:
    sym = SymbolBuilder()
    sym.save(tmp_path / "a-symbol.json", [sym.op("clip", "clamp", [sym.var("data")])])
    write_ndarray_file(tmp_path / "a-0000.params", {})
    line = _one_line(capsys, tmp_path / "a-0000.params", tmp_path, "--input_shape", "[2]")
    assert "clip node 'clamp'" in line and "a_min and a_max are required" in line


EXTRACTOR = """
    from converter.front.extractor import FrontExtractorOp


    class MaxPoolExtractor(FrontExtractorOp):
        op = "MaxPool"
        enabled = True

        @classmethod
        def extract(cls, node):
            return undefined_helper(node)
"""


def test_user_extractor_name_error_names_file_and_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "ext" / "front" / "onnx" / "pool_ext.py"
    path.parent.mkdir(parents=True)
    path.write_text(textwrap.dedent(EXTRACTOR))
    line = _one_line(capsys, _onnx_max_pool(tmp_path), tmp_path,
                     "--extensions", str(tmp_path / "ext"))
    assert "MaxPool node 'pool'" in line and f"{path}:11" in line
    assert "NameError" in line and "undefined_helper" in line


def test_builtin_translator_bug_names_its_file_and_line(tmp_path: Path, capsys,
                                                        monkeypatch) -> None:
    from converter.front.onnx.ops import nn

    def broken(n: object) -> dict:
        raise KeyError("kernel")

    monkeypatch.setattr(nn, "_pool_attrs", broken)
    model = make_model(
        [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2])],
        [("x", TensorProto.FLOAT, [1, 1, 4, 4])], [("y", TensorProto.FLOAT, [1, 1, 2, 2])])
    onnx.save(model, tmp_path / "pool.onnx")
    line = _one_line(capsys, tmp_path / "pool.onnx", tmp_path)
    assert "MaxPool node 'pool'" in line and f"{nn.__file__}:" in line and "KeyError" in line
    assert "report" in line
