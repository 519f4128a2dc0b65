"""ONNX Col2Im as Col2Im-15 in real OpenVINO and in the shim, against a loop over every column
element written here; a 3-D fold is refused in one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model
from tests.front.test_onnx_errors import convert_error


def _fold(columns, size, kernel, strides, dilations, pads):
    """Each column element added at its pixel: block (bh, bw), kernel offset (i, j)."""
    n, rows, count = columns.shape
    channels = rows // (kernel[0] * kernel[1])
    height, width = size[0] + pads[0] + pads[2], size[1] + pads[1] + pads[3]
    blocks_w = (width - dilations[1] * (kernel[1] - 1) - 1) // strides[1] + 1
    image = np.zeros((n, channels, height, width))
    for row in range(rows):
        c, i, j = row // (kernel[0] * kernel[1]), row // kernel[1] % kernel[0], row % kernel[1]
        for block in range(count):
            y = block // blocks_w * strides[0] + i * dilations[0]
            x = block % blocks_w * strides[1] + j * dilations[1]
            image[:, c, y, x] += columns[:, row, block]
    return image[:, :, pads[0]:pads[0] + size[0], pads[1]:pads[1] + size[1]]


@pytest.mark.parametrize(("size", "kernel", "strides", "dilations", "pads"), [
    ([5, 5], [2, 2], [1, 1], [1, 1], [0, 0, 0, 0]),
    ([6, 7], [2, 3], [2, 1], [1, 2], [1, 0, 1, 2])])
def test_col2im(size, kernel, strides, dilations, pads) -> None:
    padded = [size[0] + pads[0] + pads[2], size[1] + pads[1] + pads[3]]
    count = np.prod([(p - d * (k - 1) - 1) // s + 1
                     for p, d, k, s in zip(padded, dilations, kernel, strides)])
    columns = np.random.default_rng(18).standard_normal((2, 3 * kernel[0] * kernel[1], count))
    columns = columns.astype(np.float32)
    node = helper.make_node("Col2Im", ["x", "size", "kernel"], ["y"], strides=strides,
                            dilations=dilations, pads=pads)
    model = make_model([node], [("x", TensorProto.FLOAT, list(columns.shape))],
                       [("y", TensorProto.FLOAT, None)], opset=18,
                       initializers={"size": np.array(size), "kernel": np.array(kernel)})
    expected = _fold(columns, size, kernel, strides, dilations, pads)
    for engine in ("openvino", "shim"):
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([columns])
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=engine)


def test_a_volume_fold_is_refused(tmp_path: Path, capsys) -> None:
    node = helper.make_node("Col2Im", ["x", "size", "kernel"], ["y"])
    model = make_model([node], [("x", TensorProto.FLOAT, [1, 8, 8])],
                       [("y", TensorProto.FLOAT, None)], opset=18,
                       initializers={"size": np.array([3, 3, 3]), "kernel": np.array([2, 2, 2])})
    onnx.save(model, tmp_path / "m.onnx")
    assert "2-D only" in convert_error(capsys, tmp_path / "m.onnx")
