"""ONNX BitShift by the type's width or more, or by a negative amount (every bit shifted out: 0,
or the sign for a signed right shift), and by ordinary amounts on values that need all 32 bits,
in real OpenVINO and in the shim, against numpy's shifts."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model


def _expected(x: np.ndarray, shift: np.ndarray, left: bool) -> np.ndarray:
    width = x.dtype.itemsize * 8
    out = []
    for v, s in zip(x.tolist(), shift.tolist()):
        if 0 <= s < width:
            out.append((np.array(v, x.dtype) << s) if left else (np.array(v, x.dtype) >> s))
        else:
            out.append(-1 if not left and v < 0 else 0)
    return np.array(out, x.dtype)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize(("dtype", "elem"), [(np.int32, TensorProto.INT32),
                                             (np.uint32, TensorProto.UINT32)])
def test_bit_shift(dtype, elem, left: bool) -> None:
    if dtype == np.int32:
        x = np.array([-8, 4, -1, 123456789, 2147483647, -2147483647, 7], dtype)
        shift = np.array([32, 33, -1, 1, 1, 3, -64], dtype)
    else:
        x = np.array([8, 4, 4294967295, 123456789, 4294967294, 7], dtype)
        shift = np.array([32, 100, 1, 1, 31, 0], dtype)
    node = helper.make_node("BitShift", ["x", "s"], ["y"], direction="LEFT" if left else "RIGHT")
    model = make_model([node], [("x", elem, [x.size]), ("s", elem, [x.size])],
                       [("y", elem, None)], opset=11)
    for engine in ("openvino", "shim"):
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([x, shift])
        np.testing.assert_array_equal(got, _expected(x, shift, left), err_msg=engine)
