"""ONNX nodes out of topological order (float16 converters with keep_io_types append the
casts of the inputs after their readers; onnxruntime and OpenVINO accept them) convert in
dependency order; a node reading what nothing produces is still one clear error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine
from tests.conftest import make_model
from tests.front.test_onnx_errors import convert_error

F, H = TensorProto.FLOAT, TensorProto.FLOAT16


def _appended_casts() -> onnx.ModelProto:
    """x -> Cast(f16) -> Relu -> Mul(w) -> Cast(f32) -> y, the input's Cast last."""
    nodes = [helper.make_node("Relu", ["x16"], ["r"]),
             helper.make_node("Mul", ["r", "w"], ["m"]),
             helper.make_node("Cast", ["m"], ["y"], to=F),
             helper.make_node("Cast", ["x"], ["x16"], to=H)]
    return make_model(nodes, [("x", F, [2, 3])], [("y", F, [2, 3])],
                      {"w": np.full((2, 3), 3, np.float16)})


@pytest.mark.parametrize("engine", ["shim", "openvino"])
def test_nodes_after_their_readers_convert(tmp_path: Path, engine: str) -> None:
    onnx.save(_appended_casts(), tmp_path / "m.onnx")
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path)).xml
    x = np.array([[-1, 0.5, 2], [3, -4, 0.25]], np.float32)
    np.testing.assert_array_equal(open_engine(engine, xml).run({"x": x})["y"],
                                  np.maximum(x, 0) * 3)


def test_a_cycle_is_one_error(tmp_path: Path, capsys) -> None:
    nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="first"),
             helper.make_node("Relu", ["a"], ["b"], name="second")]
    onnx.save(make_model(nodes, [("x", F, [2])], [("b", F, [2])]), tmp_path / "m.onnx")
    line = convert_error(capsys, tmp_path / "m.onnx")
    assert "input 'b' of node 'first' (Add) is produced by nothing" in line
