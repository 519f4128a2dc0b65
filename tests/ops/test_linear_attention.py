"""ONNX LinearAttention (opset 27), its recurrence unrolled into MatMuls, in real OpenVINO and in
the shim, against the update rules written here as a loop over steps and heads."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

RNG = np.random.default_rng(33)
B, T, D_K, D_V = 2, 3, 4, 5


def _expected(q, k, v, past, decay, beta, q_heads, kv_heads, rule):
    """The recurrence per step, per key/value head h and its query heads h * G .. h * G + G - 1."""
    group, scale = q_heads // kv_heads, 1 / np.sqrt(D_K)
    state = np.zeros((B, kv_heads, D_K, D_V)) if past is None else past.astype(np.float64)
    out = np.zeros((B, T, q_heads * D_V))
    for b in range(B):
        for t in range(T):
            for h in range(kv_heads):
                kt, vt = k[b, t, h * D_K:(h + 1) * D_K], v[b, t, h * D_V:(h + 1) * D_V]
                s = state[b, h]
                if "gated" in rule:
                    g = decay[b, t, h * D_K:(h + 1) * D_K] if decay.shape[2] > kv_heads \
                        else decay[b, t, h]
                    s = s * np.exp(np.reshape(g, (-1, 1)))
                if "delta" in rule:
                    rate = beta[b, t, h if beta.shape[2] > 1 else 0]
                    s = s + rate * np.outer(kt, vt - s.T @ kt)
                else:
                    s = s + np.outer(kt, vt)
                state[b, h] = s
                for i in range(h * group, (h + 1) * group):
                    out[b, t, i * D_V:(i + 1) * D_V] = scale * q[b, t, i * D_K:(i + 1) * D_K] @ s
    return out, state


@pytest.mark.parametrize(("rule", "q_heads", "kv_heads", "per_head", "with_past"), [
    ("linear", 2, 2, False, False), ("gated", 2, 2, True, True), ("delta", 4, 2, False, False),
    ("gated_delta", 4, 1, False, True)])
def test_linear_attention(rule, q_heads, kv_heads, per_head, with_past) -> None:
    def rand(*shape):
        return RNG.standard_normal(shape).astype(np.float32)

    feeds = {"q": rand(B, T, q_heads * D_K), "k": rand(B, T, kv_heads * D_K) / 2,
             "v": rand(B, T, kv_heads * D_V),
             "past": rand(B, kv_heads, D_K, D_V) if with_past else None,
             "decay": -np.abs(rand(B, T, kv_heads if per_head else kv_heads * D_K)),
             "beta": RNG.uniform(0, 1, (B, T, kv_heads)).astype(np.float32)}
    names = ["q", "k", "v", "past" if with_past else "", "decay", "beta"]
    node = helper.make_node("LinearAttention", names, ["y", "state"], update_rule=rule,
                            q_num_heads=q_heads, kv_num_heads=kv_heads)
    inputs = [(name, TensorProto.FLOAT, list(feeds[name].shape)) for name in names if name]
    model = make_model([node], inputs, [("y", TensorProto.FLOAT, None),
                                        ("state", TensorProto.FLOAT, None)], opset=27)
    want = _expected(*(feeds[k] for k in ("q", "k", "v", "past", "decay", "beta")),
                     q_heads, kv_heads, rule)
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(
            {name: feeds[name] for name in names if name})
        for g, e in zip(got, want):
            assert g.shape == e.shape, engine
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5, err_msg=engine)
