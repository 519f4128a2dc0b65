"""ONNX MaxPool's Indices output in both storage orders (row-major h * W + w, column-major
w * H + h, each plus the plane's offset), in real OpenVINO and in the shim, against a loop over
windows written here."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model


@pytest.mark.parametrize("order", [0, 1])
def test_max_pool_indices(order: int) -> None:
    x = np.random.default_rng(8).permutation(2 * 3 * 5 * 4).reshape(2, 3, 5, 4)
    x = x.astype(np.float32)
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], strides=[2, 1],
                            storage_order=order)
    model = make_model([node], [("x", TensorProto.FLOAT, [2, 3, 5, 4])],
                       [("y", TensorProto.FLOAT, None), ("i", TensorProto.INT64, None)])
    expected = np.zeros((2, 3, 2, 3), np.int64)
    for b, c, oh, ow in np.ndindex(*expected.shape):
        window = x[b, c, 2 * oh:2 * oh + 2, ow:ow + 2]
        dh, dw = np.unravel_index(np.argmax(window), window.shape)
        h, w = 2 * oh + dh, ow + dw
        expected[b, c, oh, ow] = (b * 3 + c) * 20 + (w * 5 + h if order else h * 4 + w)
    for engine in ("openvino", "shim"):
        _, got = ExtgenBackend.prepare(model, engine=engine).run([x])
        np.testing.assert_array_equal(got, expected, err_msg=engine)
