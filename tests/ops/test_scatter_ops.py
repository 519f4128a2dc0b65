"""ONNX TensorScatter (a KV cache written at per-batch positions) and MaxUnpool (values put back
at their MaxPool indices) as ScatterElementsUpdate, in real OpenVINO and in the shim, against
loops written here."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

ENGINES = ("openvino", "shim")
RNG = np.random.default_rng(24)


@pytest.mark.parametrize(("mode", "axis", "writes"), [
    ("linear", -2, [0, 2]), ("circular", -2, [3, 1]), ("linear", 1, None)])
def test_tensor_scatter(mode, axis, writes) -> None:
    cache = RNG.standard_normal((2, 3, 5, 4)).astype(np.float32)
    shape = list(cache.shape)
    shape[axis] = 2
    update = RNG.standard_normal(shape).astype(np.float32)
    names = ["cache", "update"] + ([] if writes is None else ["writes"])
    inputs = [("cache", TensorProto.FLOAT, list(cache.shape)),
              ("update", TensorProto.FLOAT, shape)]
    inputs += [] if writes is None else [("writes", TensorProto.INT64, [2])]
    node = helper.make_node("TensorScatter", names, ["y"], mode=mode, axis=axis)
    model = make_model([node], inputs, [("y", TensorProto.FLOAT, None)], opset=24)
    expected = cache.copy()
    seq = np.moveaxis(expected, axis, -1)  # a view: writing it writes expected
    new = np.moveaxis(update, axis, -1)
    for b in range(2):
        for s in range(2):
            at = (0 if writes is None else writes[b]) + s
            seq[b, ..., at % cache.shape[axis]] = new[b, ..., s]
    feeds = [cache, update] + ([] if writes is None else [np.array(writes, np.int64)])
    for engine in ENGINES:
        (got,) = ExtgenBackend.prepare(model, engine=engine).run(feeds)
        np.testing.assert_array_equal(got, expected, err_msg=engine)


@pytest.mark.parametrize("output_shape", [None, [1, 2, 5, 6]])
def test_max_unpool(output_shape) -> None:
    x = np.array([[[[5, 6], [7, 8]], [[1, 2], [3, 4]]]], np.float32)  # [1, 2, 2, 2]
    # flat indices into the [1, 2, 4, 4] tensor the 2x2 stride-2 pooling implies
    indices = np.array([[[[0, 3], [9, 15]], [[16 + 5, 16 + 6], [16 + 8, 16 + 14]]]], np.int64)
    names = ["x", "i"] + ([] if output_shape is None else ["shape"])
    node = helper.make_node("MaxUnpool", names, ["y"], kernel_shape=[2, 2], strides=[2, 2])
    inputs = [("x", TensorProto.FLOAT, [1, 2, 2, 2]), ("i", TensorProto.INT64, [1, 2, 2, 2])]
    inits = {} if output_shape is None else {"shape": np.array(output_shape, np.int64)}
    model = make_model([node], inputs, [("y", TensorProto.FLOAT, None)], initializers=inits,
                       opset=22)
    unpooled = np.zeros(32, np.float32)
    unpooled[indices.ravel()] = x.ravel()
    expected = unpooled.reshape(1, 2, 4, 4)
    if output_shape is not None:  # padded at the end of each axis
        expected = np.pad(expected, [(0, 0), (0, 0), (0, 1), (0, 2)])
    for engine in ENGINES:
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([x, indices])
        np.testing.assert_array_equal(got, expected, err_msg=engine)
