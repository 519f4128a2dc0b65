"""ONNX Det as a Leibniz sum, in real OpenVINO and in the shim, against determinants worked out
here by cofactor expansion; a matrix of unknown size is refused in one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model
from tests.front.test_onnx_errors import convert_error


def _cofactor_det(m: np.ndarray) -> float:
    if len(m) == 1:
        return float(m[0, 0])
    return sum((-1) ** j * m[0, j] * _cofactor_det(np.delete(m[1:], j, axis=1))
               for j in range(len(m)))


@pytest.mark.parametrize("shape", [[2, 2], [3, 3, 3], [2, 1, 4, 4], [1, 1]])
def test_det(shape) -> None:
    x = np.random.default_rng(7).integers(-3, 4, shape).astype(np.float32)
    model = make_model([helper.make_node("Det", ["x"], ["y"])], [("x", TensorProto.FLOAT, shape)],
                       [("y", TensorProto.FLOAT, None)], opset=22)
    matrices = x.reshape(-1, shape[-1], shape[-1])
    expected = np.array([_cofactor_det(m) for m in matrices]).reshape(shape[:-2])
    for engine in ("openvino", "shim"):
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([x])
        np.testing.assert_allclose(got, expected, atol=1e-4, err_msg=engine)


def test_det_of_unknown_size_is_refused(tmp_path: Path, capsys) -> None:
    model = make_model([helper.make_node("Det", ["x"], ["y"])],
                       [("x", TensorProto.FLOAT, ["n", "n"])], [("y", TensorProto.FLOAT, None)])
    onnx.save(model, tmp_path / "m.onnx")
    assert "size known at conversion" in convert_error(capsys, tmp_path / "m.onnx")
