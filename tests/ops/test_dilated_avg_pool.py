"""ONNX AveragePool with dilations (2-D and 3-D, pads, strides, ceil_mode, count_include_pad),
a convolution by ones divided by the counted taps, in real OpenVINO and in the shim against
onnxruntime within 1e-5, and LpPool with dilations against onnx's reference evaluator; without
a static shape it is refused in one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model
from tests.front.test_onnx_errors import convert_error
from tests.ort_oracle import needs_recent

RNG = np.random.default_rng(19)


def _model(shape, **attrs) -> onnx.ModelProto:
    node = helper.make_node("AveragePool", ["x"], ["y"], **attrs)
    return make_model([node], [("x", TensorProto.FLOAT, shape)], [("y", TensorProto.FLOAT, None)],
                      opset=19)


@needs_recent
@pytest.mark.parametrize("include_pad", [0, 1])
@pytest.mark.parametrize("ceil", [0, 1])
@pytest.mark.parametrize(("shape", "kernel", "dilations", "strides", "pads"), [
    ([2, 3, 9, 10], [3, 2], [2, 3], [2, 1], [1, 0, 2, 1]),
    ([1, 2, 7, 8, 6], [2, 2, 3], [2, 1, 2], [3, 2, 1], [0, 1, 1, 1, 0, 2]),
])
def test_dilated_average_pool(shape, kernel, dilations, strides, pads, ceil, include_pad):
    model = _model(shape, kernel_shape=kernel, dilations=dilations, strides=strides, pads=pads,
                   ceil_mode=ceil, count_include_pad=include_pad)
    x = RNG.standard_normal(shape).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"x": x})[0]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run([x])[0]
        assert got.shape == expected.shape, engine
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=engine)


def test_dynamic_shape_is_refused(tmp_path: Path, capsys) -> None:
    model = _model(["n", 3, "h", "w"], kernel_shape=[2, 2], dilations=[2, 2])
    onnx.save(model, tmp_path / "m.onnx")
    line = convert_error(capsys, tmp_path / "m.onnx")
    assert "AveragePool node 'y'" in line and "static input shape" in line


@pytest.mark.parametrize("p", [1, 2, 3])
def test_dilated_lp_pool(p: int) -> None:
    node = helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 3], dilations=[2, 2],
                            strides=[1, 2], pads=[1, 1, 0, 2], p=p)
    model = make_model([node], [("x", TensorProto.FLOAT, [1, 2, 7, 9])],
                       [("y", TensorProto.FLOAT, None)], opset=19)
    x = RNG.standard_normal((1, 2, 7, 9)).astype(np.float32)
    expected = ReferenceEvaluator(model).run(None, {"x": x})[0]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run([x])[0]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=engine)
