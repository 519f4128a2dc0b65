"""onnxruntime's com.microsoft fusions (the Gelu family, BiasAdd, skip/simplified layer norms,
EmbedLayerNormalization), decomposed into opset ops, in OpenVINO and in the shim against
onnxruntime, with the optional inputs present and absent."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model
from tests.ops.test_transformer_ops import check

RNG = np.random.default_rng(31)
MS = "com.microsoft"
_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int32): TensorProto.INT32,
          np.dtype(np.int64): TensorProto.INT64}


def _floats(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def ms_model(op: str, feeds: dict[str, np.ndarray | None], outputs: int | list[str] = 1,
             domain: str = MS, **attrs) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A one-node model of op; a None feed is an omitted optional input, an output named ''
    an omitted optional output."""
    names = [k if v is not None else "" for k, v in feeds.items()]
    while not names[-1]:
        names.pop()
    outs = [f"y{i}" for i in range(outputs)] if isinstance(outputs, int) else outputs
    node = helper.make_node(op, names, outs, domain=domain, **attrs)
    given = {k: v for k, v in feeds.items() if v is not None}
    model = make_model([node], [(k, _TYPES[v.dtype], list(v.shape)) for k, v in given.items()],
                       [], opset=17, domains=[MS])
    model.graph.output.extend(helper.make_empty_tensor_value_info(o) for o in outs if o)
    return model, given


@pytest.mark.parametrize("op", ["Gelu", "FastGelu", "QuickGelu"])
def test_gelu_family(op: str) -> None:
    attrs = {"alpha": 1.5} if op == "QuickGelu" else {}
    check(*ms_model(op, {"x": _floats(2, 3, 8)}, **attrs))


@pytest.mark.parametrize("op", ["BiasGelu", "FastGelu"])
def test_gelu_with_bias(op: str) -> None:
    check(*ms_model(op, {"x": _floats(2, 3, 8), "b": _floats(8)}))


def test_bias_add() -> None:
    """Against numpy: onnxruntime runs BiasAdd on CUDA only."""
    model, feeds = ms_model("BiasAdd", {"x": _floats(2, 4, 8), "b": _floats(8),
                                        "s": _floats(2, 4, 8)})
    for engine in ("openvino", "shim"):
        [got] = ExtgenBackend.prepare(model, engine=engine).run(list(feeds.values()))
        np.testing.assert_allclose(got, feeds["x"] + feeds["b"] + feeds["s"], rtol=1e-6,
                                   err_msg=engine)


@pytest.mark.parametrize("beta", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_skip_layer_norm(bias: bool, beta: bool) -> None:
    feeds = {"x": _floats(2, 3, 16), "skip": _floats(2, 3, 16), "gamma": _floats(16),
             "beta": _floats(16) if beta else None, "bias": _floats(16) if bias else None}
    check(*ms_model("SkipLayerNormalization", feeds, ["y", "", "", "sum"], epsilon=1e-5))


@pytest.mark.parametrize("bias", [True, False])
def test_skip_simplified_layer_norm(bias: bool) -> None:
    feeds = {"x": _floats(2, 3, 16), "skip": _floats(1, 3, 16), "gamma": _floats(16),
             "bias": _floats(16) if bias else None}
    check(*ms_model("SkipSimplifiedLayerNormalization", feeds, ["y", "", "", "sum"]))


@pytest.mark.parametrize("axis", [-1, 1])
def test_simplified_layer_norm(axis: int) -> None:
    feeds = {"x": _floats(2, 3, 16), "scale": _floats(*[3, 16][axis:] if axis > 0 else [16])}
    check(*ms_model("SimplifiedLayerNormalization", feeds, domain="", axis=axis, epsilon=1e-4))


@pytest.mark.parametrize("segments", [True, False])
@pytest.mark.parametrize("mask", [True, False])
@pytest.mark.parametrize("positions", [True, False])
def test_embed_layer_norm(segments: bool, mask: bool, positions: bool) -> None:
    batch, seq, hidden = 2, 5, 8
    feeds = {
        "ids": RNG.integers(0, 11, [batch, seq]).astype(np.int32),
        "segment_ids": RNG.integers(0, 2, [batch, seq]).astype(np.int32) if segments else None,
        "words": _floats(11, hidden), "positions": _floats(9, hidden),
        "segments": _floats(2, hidden) if segments else None,
        "gamma": _floats(hidden), "beta": _floats(hidden),
        "mask": np.array([[1] * 5, [1, 1, 1, 0, 0]], np.int32) if mask else None,
        "position_ids": RNG.integers(0, 9, [batch, seq]).astype(np.int32) if positions else None,
    }
    check(*ms_model("EmbedLayerNormalization", feeds, ["y", "mask_index", "sum"]))
