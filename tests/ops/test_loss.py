"""ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (every reduction, ignore_index,
class weights, extra spatial axes), decomposed into opset ops, in real OpenVINO and in the shim
against onnxruntime within 1e-5."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

RNG = np.random.default_rng(23)


def _check(op: str, shape: list[int], weighted: bool, outputs: int, **attrs) -> None:
    names = ["x", "t"] + (["w"] if weighted else [])
    node = helper.make_node(op, names, ["loss", "log_prob"][:outputs], **attrs)
    inputs = [("x", TensorProto.FLOAT, shape),
              ("t", TensorProto.INT64, [shape[0], *shape[2:]])]
    if weighted:
        inputs.append(("w", TensorProto.FLOAT, [shape[1]]))
    model = make_model([node], inputs, [(o, TensorProto.FLOAT, None) for o in node.output],
                       opset=13)
    x = RNG.standard_normal(shape).astype(np.float32)
    t = RNG.integers(0, shape[1], [shape[0], *shape[2:]]).astype(np.int64)
    t.flat[::3] = attrs.get("ignore_index", 0)
    feeds = [x, t] + ([RNG.random(shape[1]).astype(np.float32)] if weighted else [])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, dict(zip(names, feeds)))
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(feeds)
        for e, g in zip(expected, got):
            assert g.shape == e.shape, engine
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=engine)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [None, -1, 2])
@pytest.mark.parametrize("shape", [[4, 5], [2, 3, 4, 2]])
def test_nll_loss(shape, ignore, weighted, reduction) -> None:
    attrs = {"reduction": reduction} | ({} if ignore is None else {"ignore_index": ignore})
    _check("NegativeLogLikelihoodLoss", shape, weighted, 1, **attrs)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [None, 1])
def test_softmax_cross_entropy_loss(ignore, weighted, reduction) -> None:
    attrs = {"reduction": reduction} | ({} if ignore is None else {"ignore_index": ignore})
    _check("SoftmaxCrossEntropyLoss", [3, 4, 5], weighted, 2, **attrs)
