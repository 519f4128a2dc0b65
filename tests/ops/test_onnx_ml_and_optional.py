"""ONNX-ML Binarizer and ArrayFeatureExtractor, and OptionalHasElement/OptionalGetElement on
tensors, in real OpenVINO and in the shim."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

ENGINES = ("openvino", "shim")


def _run(model, feeds):
    return [ExtgenBackend.prepare(model, engine=e).run(feeds) for e in ENGINES]


def test_binarizer() -> None:
    x = np.array([[-1.0, 0.5, 0.51, 2.0]], np.float32)
    node = helper.make_node("Binarizer", ["x"], ["y"], domain="ai.onnx.ml", threshold=0.5)
    model = make_model([node], [("x", TensorProto.FLOAT, [1, 4])],
                       [("y", TensorProto.FLOAT, None)], domains=["ai.onnx.ml"])
    for (got,) in _run(model, [x]):
        np.testing.assert_array_equal(got, [[0, 0, 1, 1]])


def test_array_feature_extractor() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"], domain="ai.onnx.ml")
    model = make_model([node], [("x", TensorProto.FLOAT, [3, 4]), ("i", TensorProto.INT64, [2])],
                       [("y", TensorProto.FLOAT, None)], domains=["ai.onnx.ml"])
    for (got,) in _run(model, [x, np.array([3, 1], np.int64)]):
        np.testing.assert_array_equal(got, [[3, 1], [7, 5], [11, 9]])


def test_optional_of_a_tensor_and_of_nothing() -> None:
    nodes = [helper.make_node("OptionalHasElement", ["x"], ["has"]),
             helper.make_node("OptionalHasElement", [""], ["none"]),
             helper.make_node("OptionalGetElement", ["x"], ["y"])]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [2])],
                       [("has", TensorProto.BOOL, []), ("none", TensorProto.BOOL, []),
                        ("y", TensorProto.FLOAT, [2])], opset=18)
    for has, none, y in _run(model, [np.array([1, 2], np.float32)]):
        assert bool(has) and not bool(none)
        np.testing.assert_array_equal(y, [1, 2])
