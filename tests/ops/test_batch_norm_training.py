"""ONNX BatchNormalization with training_mode=1 (batch statistics, running statistics updated),
in real OpenVINO and in the shim, against the formulas of the ONNX spec in numpy."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model


def test_batch_norm_training_mode() -> None:
    rng = np.random.default_rng(15)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    scale, bias, mean, var = (rng.uniform(0.5, 1.5, 3).astype(np.float32) for _ in range(4))
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"],
                            training_mode=1, momentum=0.8, epsilon=1e-3)
    inputs = [("x", TensorProto.FLOAT, [2, 3, 4, 5])]
    inputs += [(name, TensorProto.FLOAT, [3]) for name in "sbmv"]
    model = make_model([node], inputs, [(o, TensorProto.FLOAT, None) for o in ("y", "rm", "rv")],
                       opset=15)
    batch_mean, batch_var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    shape = (1, 3, 1, 1)
    y = ((x - batch_mean.reshape(shape)) / np.sqrt(batch_var.reshape(shape) + 1e-3)
         * scale.reshape(shape) + bias.reshape(shape))
    expected = [y, 0.8 * mean + 0.2 * batch_mean, 0.8 * var + 0.2 * batch_var]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run([x, scale, bias, mean, var])
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5, err_msg=engine)
