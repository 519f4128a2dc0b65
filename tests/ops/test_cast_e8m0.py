"""Cast to float8_e8m0 by round_mode (up, the default; down; nearest, ties up), saturating, in
real OpenVINO and in the shim, against powers of two picked here by hand."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

X = np.array([0.0, 0.124, 0.25, 0.3, 0.375, 1.1, 2.0, 3.0, 3e38, np.inf, np.nan], np.float32)
EXPECTED = {  # 2^k values; 2^-127 below the range, 2^127 above it
    "up": [2.0**-127, 0.125, 0.25, 0.5, 0.5, 2, 2, 4, 2.0**127, 2.0**127, np.nan],
    "down": [2.0**-127, 0.0625, 0.25, 0.25, 0.25, 1, 2, 2, 2.0**127, 2.0**127, np.nan],
    "nearest": [2.0**-127, 0.125, 0.25, 0.25, 0.5, 1, 2, 4, 2.0**127, 2.0**127, np.nan],
}


@pytest.mark.parametrize("mode", ["up", "down", "nearest"])
def test_cast_to_e8m0(mode: str) -> None:
    node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E8M0, round_mode=mode)
    model = make_model([node], [("x", TensorProto.FLOAT, [X.size])],
                       [("y", TensorProto.FLOAT8E8M0, [X.size])], opset=24)
    for engine in ("openvino", "shim"):
        (got,) = ExtgenBackend.prepare(model, engine=engine).run(
            [numpy_helper.from_array(X, "x")])
        values = numpy_helper.to_array(got).astype(np.float64)
        np.testing.assert_array_equal(values, EXPECTED[mode], err_msg=engine)
