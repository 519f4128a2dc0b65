"""ONNX GridSample (every mode, padding mode and align_corners; opset 16 and 20 names) through
GridSample-9 in real OpenVINO and in the shim, against onnxruntime within 1e-5; a cubic volumetric
GridSample is refused in one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model
from tests.front.test_onnx_errors import convert_error

RNG = np.random.default_rng(20)
FEEDS = [RNG.standard_normal((2, 3, 5, 7)).astype(np.float32),
         RNG.uniform(-1.4, 1.4, (2, 4, 6, 2)).astype(np.float32)]


def _model(opset: int, shape=(2, 3, 5, 7), **attrs) -> onnx.ModelProto:
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], **attrs)
    grid = [shape[0], *([4, 6, 2] if len(shape) == 4 else [4, 6, 2, 3])]
    return make_model([node], [("x", TensorProto.FLOAT, list(shape)),
                               ("grid", TensorProto.FLOAT, grid)],
                      [("y", TensorProto.FLOAT, None)], opset=opset)


@pytest.mark.parametrize("corners", [0, 1])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize(("opset", "mode"), [(16, "bilinear"), (16, "nearest"), (16, "bicubic"),
                                             (20, "linear"), (20, "cubic")])
def test_grid_sample_matches_onnxruntime(opset: int, mode: str, padding: str, corners: int):
    model = _model(opset, mode=mode, padding_mode=padding, align_corners=corners)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"x": FEEDS[0], "grid": FEEDS[1]})[0]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(FEEDS)[0]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=engine)


def test_cubic_volumetric_grid_sample_is_refused(tmp_path: Path, capsys) -> None:
    """(linear and nearest volumes are decomposed: tests/ops/test_grid_sample_volume.py)"""
    onnx.save(_model(20, shape=(1, 2, 3, 4, 5), mode="cubic"), tmp_path / "m.onnx")
    line = convert_error(capsys, tmp_path / "m.onnx")
    assert "2-D only" in line


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("size", [[2, 3, 4, 5], [2, 3, 3, 4, 5]])
def test_onnx_affine_grid_against_onnxruntime(size, align):
    """AffineGrid, 2-D and 3-D, both corner alignments, in both engines."""
    count = len(size) - 2
    node = helper.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=align)
    model = make_model([node], [("theta", TensorProto.FLOAT, [2, count, count + 1]),
                                ("size", TensorProto.INT64, [len(size)])],
                       [("grid", TensorProto.FLOAT, None)], opset=20)
    feeds = {"theta": np.random.default_rng(5).standard_normal((2, count, count + 1))
             .astype(np.float32), "size": np.array(size, np.int64)}
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)[0]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(list(feeds.values()))[0]
        assert got.shape == expected.shape, engine
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=engine)
