"""ONNX CausalConvWithState (opset 27) through Concat + GroupConvolution + Slice, in real OpenVINO
and in the shim, against a direct loop over time steps written here."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

RNG = np.random.default_rng(27)


def _expected(x, w, bias, past, silu: bool):
    """y[b, c, t] = sum_j w[c, 0, j] * seq[b, c, t + j] over seq = past ++ x; the state is
    seq's last k - 1 steps."""
    batch, channels, length = x.shape
    k = w.shape[2]
    if past is None:
        past = np.zeros((batch, channels, k - 1), x.dtype)
    seq = np.concatenate([past, x], axis=2)
    y = np.zeros_like(x)
    for t in range(length):
        y[:, :, t] = (seq[:, :, t:t + k] * w[None, :, 0, :]).sum(-1)
    if bias is not None:
        y += bias[None, :, None]
    if silu:
        y = y / (1 + np.exp(-y))
    return y, seq[:, :, seq.shape[2] - (k - 1):]


@pytest.mark.parametrize(("length", "k", "with_bias", "with_past", "activation"), [
    (8, 4, False, False, "none"), (8, 4, True, True, "silu"), (1, 4, True, True, "swish"),
    (2, 5, False, False, "none"), (6, 1, True, False, "silu")])
def test_causal_conv_with_state(length, k, with_bias, with_past, activation) -> None:
    x = RNG.standard_normal((2, 3, length)).astype(np.float32)
    w = RNG.standard_normal((3, 1, k)).astype(np.float32)
    bias = RNG.standard_normal(3).astype(np.float32) if with_bias else None
    past = RNG.standard_normal((2, 3, k - 1)).astype(np.float32) if with_past else None
    names = ["x", "w", "bias" if with_bias else "", "past" if with_past else ""]
    while not names[-1]:
        names.pop()
    node = helper.make_node("CausalConvWithState", names, ["y", "state"], activation=activation)
    feeds = {"x": x, "w": w, "bias": bias, "past": past}
    inputs = [(name, TensorProto.FLOAT, list(feeds[name].shape)) for name in names if name]
    model = make_model([node], inputs, [("y", TensorProto.FLOAT, None),
                                        ("state", TensorProto.FLOAT, None)], opset=27)
    want = _expected(x, w, bias, past, activation != "none")
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(
            {name: feeds[name] for name in names if name})
        for g, e in zip(got, want):
            assert g.shape == e.shape, engine
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=engine)
