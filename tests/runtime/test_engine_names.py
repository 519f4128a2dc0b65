"""Both engines name outputs as the IR does, even where OpenVINO's compilation folds a Result's
producer into an earlier tensor and merges their names."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto
from onnx import helper as h

from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine


@pytest.mark.parametrize("engine", ["shim", "openvino"])
def test_output_keeps_its_name_past_a_folded_reshape(tmp_path: Path, engine: str) -> None:
    # OpenVINO drops the no-op Reshape: its output port then carries both "a" and "y"
    shape = onnx.numpy_helper.from_array(np.array([2, 3], np.int64), "s")
    graph = h.make_graph(
        [h.make_node("Relu", ["x"], ["a"]), h.make_node("Reshape", ["a", "s"], ["y"])], "g",
        [h.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [h.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [shape])
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]), tmp_path / "m.onnx")
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path)).xml
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    got = open_engine(engine, xml).run({"x": x})
    assert list(got) == ["y"]
    np.testing.assert_array_equal(got["y"], np.maximum(x, 0))
