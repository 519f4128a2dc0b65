"""ONNX's optimizer steps (ai.onnx.preview.training Adagrad, Momentum, Adam) on two tensors at
once, in real OpenVINO and in the shim, against the spec's update rules written here in numpy."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

DOMAIN = "ai.onnx.preview.training"
RNG = np.random.default_rng(3)


def _run(op: str, groups: int, count: int, **attrs) -> tuple[list, list]:
    """The op on tensors of shapes [3] and [2, 2]; (feeds, outputs per engine)."""
    tensors = [RNG.uniform(0.1, 1, s).astype(np.float32) for _ in range(groups)
               for s in ((3,), (2, 2))]
    names = ["R", "T"] + [f"t{i}" for i in range(len(tensors))]
    outs = [f"o{i}" for i in range(len(tensors) - 2)]
    node = helper.make_node(op, names, outs, domain=DOMAIN, **attrs)
    inputs = [("R", TensorProto.FLOAT, []), ("T", TensorProto.INT64, [])]
    inputs += [(name, TensorProto.FLOAT, list(t.shape)) for name, t in zip(names[2:], tensors)]
    model = make_model([node], inputs, [(o, TensorProto.FLOAT, None) for o in outs],
                       domains=[DOMAIN])
    feeds = [np.float32(0.1), np.int64(count), *tensors]
    return feeds, [ExtgenBackend.prepare(model, engine=e).run(feeds)
                   for e in ("openvino", "shim")]


def _check(got, expected) -> None:
    for outputs in got:
        for g, e in zip(outputs, expected):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_adagrad() -> None:
    feeds, got = _run("Adagrad", 3, 2, decay_factor=0.1, epsilon=1e-5, norm_coefficient=0.01)
    r, t, (x1, x2, g1, g2, h1, h2) = feeds[0], feeds[1], feeds[2:]
    lr = r / (1 + t * 0.1)
    expected_x, expected_h = [], []
    for x, g, h in ((x1, g1, h1), (x2, g2, h2)):
        g = 0.01 * x + g
        h = h + g * g
        expected_x.append(x - lr * g / (np.sqrt(h) + 1e-5))
        expected_h.append(h)
    _check(got, expected_x + expected_h)


@pytest.mark.parametrize(("mode", "count"), [("standard", 0), ("standard", 3), ("nesterov", 3)])
def test_momentum(mode: str, count: int) -> None:
    feeds, got = _run("Momentum", 3, count, alpha=0.9, beta=0.5, mode=mode, norm_coefficient=0.1)
    r, (x1, x2, g1, g2, v1, v2) = feeds[0], feeds[2:]
    beta = 0.5 if count > 0 else 1.0
    expected_x, expected_v = [], []
    for x, g, v in ((x1, g1, v1), (x2, g2, v2)):
        g = 0.1 * x + g
        v = 0.9 * v + beta * g
        expected_x.append(x - r * (g + 0.9 * v if mode == "nesterov" else v))
        expected_v.append(v)
    _check(got, expected_x + expected_v)


@pytest.mark.parametrize("count", [0, 4])
def test_adam(count: int) -> None:
    feeds, got = _run("Adam", 4, count, alpha=0.8, beta=0.9, norm_coefficient=0.05,
                      norm_coefficient_post=0.02)
    r, (x1, x2, g1, g2, v1, v2, h1, h2) = feeds[0], feeds[2:]
    lr = r * np.sqrt(1 - 0.9**count) / (1 - 0.8**count) if count > 0 else r
    xs, vs, hs = [], [], []
    for x, g, v, h in ((x1, g1, v1, h1), (x2, g2, v2, h2)):
        g = 0.05 * x + g
        v = 0.8 * v + 0.2 * g
        h = 0.9 * h + 0.1 * g * g
        xs.append(0.98 * (x - lr * v / (np.sqrt(h) + 1e-6)))
        vs.append(v)
        hs.append(h)
    _check(got, xs + vs + hs)
