"""ONNX ops of transformer models (RMSNormalization, Hardmax, Attention, RotaryEmbedding),
decomposed into opset ops, in real OpenVINO and in the shim against onnxruntime within 1e-5."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model
from tests.ort_oracle import needs_recent

RNG = np.random.default_rng(29)


def check(model: onnx.ModelProto, feeds: dict[str, np.ndarray], reference: bool = False) -> None:
    """model's outputs from both engines equal onnxruntime's (or with reference, onnx's
    reference evaluator's) within 1e-5."""
    if reference:
        expected = ReferenceEvaluator(model).run(None, feeds)
    else:
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        expected = session.run(None, feeds)
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(list(feeds.values()))
        assert len(got) == len(expected), engine
        for e, g in zip(expected, got):
            assert g.shape == e.shape, engine
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=engine)


def _floats(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("axis", [-1, -2, 0, 2])
def test_rms_normalization(axis: int) -> None:
    shape = [2, 3, 4]
    scale_shape = shape[axis:]
    node = helper.make_node("RMSNormalization", ["x", "s"], ["y"], axis=axis, epsilon=1e-3)
    model = make_model([node], [("x", TensorProto.FLOAT, shape),
                                ("s", TensorProto.FLOAT, scale_shape)],
                       [("y", TensorProto.FLOAT, None)], opset=23)
    check(model, {"x": _floats(*shape), "s": _floats(*scale_shape)})


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_hardmax_marks_the_first_maximum(axis: int) -> None:
    node = helper.make_node("Hardmax", ["x"], ["y"], axis=axis)
    model = make_model([node], [("x", TensorProto.FLOAT, [3, 4, 5])],
                       [("y", TensorProto.FLOAT, None)], opset=13)
    x = RNG.integers(0, 3, [3, 4, 5]).astype(np.float32)  # many ties
    check(model, {"x": x})


def _attention_model(q, k, v, extra: dict[str, np.ndarray], outputs: int, **attrs):
    names = ["q", "k", "v", "mask", "past_k", "past_v"]
    feeds = {"q": q, "k": k, "v": v, **extra}
    inputs = [name if name in feeds else "" for name in names]
    while not inputs[-1]:
        inputs.pop()
    node = helper.make_node("Attention", inputs, ["y", "present_k", "present_v", "qk"][:outputs],
                            **attrs)
    types = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.bool_): TensorProto.BOOL}
    model = make_model([node], [(k, types[x.dtype], list(x.shape)) for k, x in feeds.items()],
                       [(o, TensorProto.FLOAT, None) for o in node.output], opset=23)
    return model, feeds


@needs_recent
@pytest.mark.parametrize("causal", [0, 1])
@pytest.mark.parametrize("past", [False, True])
@pytest.mark.parametrize("kv_heads", [4, 2])
def test_attention_3d_grouped_heads_with_cache(kv_heads: int, past: bool, causal: int) -> None:
    extra = {"past_k": _floats(2, kv_heads, 3, 5), "past_v": _floats(2, kv_heads, 3, 6)} \
        if past else {}
    model, feeds = _attention_model(_floats(2, 4, 4 * 5), _floats(2, 6, kv_heads * 5),
                                    _floats(2, 6, kv_heads * 6), extra, 3, is_causal=causal,
                                    q_num_heads=4, kv_num_heads=kv_heads)
    check(model, feeds)


@needs_recent
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("mask", ["bool", "float"])
def test_attention_4d_mask_softcap_scale_and_qk_output(mask: str, mode: int) -> None:
    bias = RNG.random((4, 7)) > 0.3 if mask == "bool" else _floats(1, 3, 4, 7)
    model, feeds = _attention_model(_floats(2, 3, 4, 8), _floats(2, 3, 7, 8),
                                    _floats(2, 3, 7, 8), {"mask": bias}, 4, softcap=2.0,
                                    scale=0.3, qk_matmul_output_mode=mode)
    # onnxruntime biases a boolean mask by the lowest float, the spec by -inf
    check(model, feeds, reference=mask == "bool" and mode == 2)


@needs_recent
@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("dim", [0, 4])
@pytest.mark.parametrize("rank", [3, 4])
def test_rotary_embedding(rank: int, dim: int, interleaved: int) -> None:
    shape = [2, 5, 3 * 8] if rank == 3 else [2, 3, 5, 8]
    half = (dim or 8) // 2
    attrs = {"num_heads": 3} if rank == 3 else {}
    node = helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"],
                            rotary_embedding_dim=dim, interleaved=interleaved, **attrs)
    model = make_model([node], [("x", TensorProto.FLOAT, shape),
                                ("cos", TensorProto.FLOAT, [7, half]),
                                ("sin", TensorProto.FLOAT, [7, half]),
                                ("pos", TensorProto.INT64, [2, 5])],
                       [("y", TensorProto.FLOAT, None)], opset=23)
    check(model, {"x": _floats(*shape), "cos": _floats(7, half), "sin": _floats(7, half),
                  "pos": RNG.integers(0, 7, [2, 5]).astype(np.int64)})


@pytest.mark.parametrize("window", [(2, -1), (1, 1)])
def test_attention_sliding_window_and_nonpad_lengths(window: tuple[int, int]) -> None:
    """Opset 25's windows with opset 24's nonpad_kv_seqlen (causal from each batch's end),
    against onnx's reference evaluator."""
    node = helper.make_node("Attention", ["q", "k", "v", "", "", "", "lens"], ["y"], is_causal=1,
                            left_window_size=window[0], right_window_size=window[1])
    model = make_model([node], [("q", TensorProto.FLOAT, [2, 2, 3, 4]),
                                ("k", TensorProto.FLOAT, [2, 2, 6, 4]),
                                ("v", TensorProto.FLOAT, [2, 2, 6, 4]),
                                ("lens", TensorProto.INT64, [2])],
                       [("y", TensorProto.FLOAT, None)], opset=25)
    check(model, {"q": _floats(2, 2, 3, 4), "k": _floats(2, 2, 6, 4), "v": _floats(2, 2, 6, 4),
                  "lens": np.array([4, 6], np.int64)}, reference=True)
