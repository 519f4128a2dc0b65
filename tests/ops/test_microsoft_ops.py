"""onnxruntime's com.microsoft fusions (the Gelu family, BiasAdd, skip/simplified layer norms,
EmbedLayerNormalization), decomposed into opset ops, in OpenVINO and in the shim against
onnxruntime, with the optional inputs present and absent."""

from __future__ import annotations

import zlib

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter.errors import ConversionError
from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model
from tests.ops.test_transformer_ops import check
from tests.ort_oracle import needs_recent

RNG = np.random.default_rng(31)
MS = "com.microsoft"
_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int32): TensorProto.INT32,
          np.dtype(np.int64): TensorProto.INT64}


@pytest.fixture(autouse=True)
def _inputs_by_test(request: pytest.FixtureRequest) -> None:
    """Each test draws the same inputs whichever tests ran before it in its worker (a draw
    that depended on the xdist schedule once put the shim 1.6e-5 off onnxruntime)."""
    RNG.bit_generator.state = np.random.default_rng(
        zlib.crc32(request.node.name.encode())).bit_generator.state


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


def engines_give(model: onnx.ModelProto, feeds: dict[str, np.ndarray],
                 expected: list[np.ndarray]) -> None:
    """For ops onnxruntime's CPU lacks: both engines give expected within 1e-5."""
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(list(feeds.values()))
        for e, g in zip(expected, got, strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=engine)


def _onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


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
    engines_give(model, feeds, [feeds["x"] + feeds["b"] + feeds["s"]])


@needs_recent
@pytest.mark.parametrize("beta", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_skip_layer_norm(bias: bool, beta: bool) -> None:
    feeds = {"x": _floats(2, 3, 16), "skip": _floats(2, 3, 16), "gamma": _floats(16),
             "beta": _floats(16) if beta else None, "bias": _floats(16) if bias else None}
    check(*ms_model("SkipLayerNormalization", feeds, ["y", "mean", "inv_std", "sum"],
                    epsilon=1e-5))


@pytest.mark.parametrize("bias", [True, False])
def test_skip_simplified_layer_norm(bias: bool) -> None:
    feeds = {"x": _floats(2, 3, 16), "skip": _floats(1, 3, 16), "gamma": _floats(16),
             "bias": _floats(16) if bias else None}
    check(*ms_model("SkipSimplifiedLayerNormalization", feeds, ["y", "", "", "sum"]))


@needs_recent
@pytest.mark.parametrize("axis", [-1, 1])
def test_simplified_layer_norm(axis: int) -> None:
    feeds = {"x": _floats(2, 3, 16), "scale": _floats(*[3, 16][axis:] if axis > 0 else [16])}
    check(*ms_model("SimplifiedLayerNormalization", feeds, ["y", "inv_std"], domain="",
                    axis=axis, epsilon=1e-4))


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


def _mask(kind: str, batch: int, seq: int, total: int) -> np.ndarray | None:
    """A key mask: None, key lengths [B], or 0/1 per key [B, T] or per query and key."""
    if kind == "lengths":
        return np.array([total, total - 2], np.int32)[:batch]
    if kind == "2d":
        return (RNG.random((batch, total)) > 0.3).astype(np.int32)
    if kind == "3d":
        return (RNG.random((batch, seq, total)) > 0.3).astype(np.int32)
    return None


@pytest.mark.parametrize("mask", ["none", "lengths", "2d", "3d"])
@pytest.mark.parametrize("past", [False, True])
def test_attention(mask: str, past: bool) -> None:
    """GPT-2's form with past (causal, present out), BERT's without."""
    batch, seq, hidden, heads, prior = 2, 4, 16, 2, 3
    total = seq + prior if past else seq
    feeds = {"x": _floats(batch, seq, hidden), "w": _floats(hidden, 3 * hidden),
             "b": _floats(3 * hidden), "mask": _mask(mask, batch, seq, total),
             "past": _floats(2, batch, heads, prior, hidden // heads) if past else None}
    outs = ["y", "present"] if past else ["y"]
    check(*ms_model("Attention", feeds, outs, num_heads=heads, unidirectional=int(past)))


@needs_recent
def test_attention_sizes_scale_and_bias() -> None:
    """Distinct V size, a custom scale, no projection bias and an attention_bias."""
    feeds = {"x": _floats(2, 3, 8), "w": _floats(8, 8 + 8 + 12), "b": None,
             "mask": _mask("2d", 2, 3, 3), "past": None, "bias": _floats(1, 2, 3, 3)}
    check(*ms_model("Attention", feeds, qkv_hidden_sizes=[8, 8, 12], num_heads=2, scale=0.2,
                    mask_filter_value=-500.0))


@pytest.mark.parametrize("layout", ["separate", "bnsh"])
@pytest.mark.parametrize("bias", [False, True])
def test_multi_head_attention_cross(layout: str, bias: bool) -> None:
    """Keys and values [B, L, N * h], or [B, N, L, h] as projected already (the bias then
    applies to the query alone)."""
    batch, seq, kv_seq, heads, size = 2, 3, 5, 2, 4
    hidden = heads * size
    k, v = _floats(batch, kv_seq, hidden), _floats(batch, kv_seq, hidden)
    if layout == "bnsh":
        k, v = _floats(batch, heads, kv_seq, size), _floats(batch, heads, kv_seq, size)
    feeds = {"q": _floats(batch, seq, hidden), "k": k, "v": v,
             "bias": _floats(3 * hidden) if bias else None,  # on Q alone for bnsh
             "mask": _mask("2d", batch, seq, kv_seq)}
    check(*ms_model("MultiHeadAttention", feeds, num_heads=heads))


@pytest.mark.parametrize("packed", ["kv", "qkv"])
def test_multi_head_attention_packed(packed: str) -> None:
    """Packed [B, L, N, 2|3, h] inputs against onnxruntime on the same data unpacked (its CPU
    provider takes only separate ones)."""
    batch, seq, heads, size = 2, 3, 2, 4
    qkv = _floats(batch, seq, heads, 3, size)
    bias = _floats(3 * heads * size)
    q, k, v = (qkv[:, :, :, i].reshape(batch, seq, -1) for i in range(3))
    separate = ms_model("MultiHeadAttention", {"q": q, "k": k, "v": v, "bias": bias},
                        num_heads=heads)
    inputs = {"q": qkv, "k": None} if packed == "qkv" else {"q": q, "k": qkv[:, :, :, 1:]}
    model, feeds = ms_model("MultiHeadAttention", {**inputs, "v": None, "bias": bias},
                            num_heads=heads)
    engines_give(model, feeds, _onnxruntime(*separate))


@pytest.mark.parametrize("mask", ["none", "lengths", "3d"])
def test_multi_head_attention_with_cache(mask: str) -> None:
    """Self-attention with past key/value, causal, an attention_bias; present out."""
    batch, seq, prior, heads, size = 2, 3, 4, 2, 4
    hidden, total = heads * size, seq + prior
    feeds = {"q": _floats(batch, seq, hidden), "k": _floats(batch, seq, hidden),
             "v": _floats(batch, seq, hidden), "bias": _floats(3 * hidden),
             "mask": _mask(mask, batch, seq, total), "attn_bias": _floats(batch, 1, seq, total),
             "past_k": _floats(batch, heads, prior, size),
             "past_v": _floats(batch, heads, prior, size)}
    check(*ms_model("MultiHeadAttention", feeds, ["y", "present_k", "present_v"],
                    num_heads=heads, unidirectional=1))


@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("dim", [0, 4])
@pytest.mark.parametrize("rank", [3, 4])
@pytest.mark.parametrize("ids", ["offset", "per_token"])
def test_rotary_embedding(ids: str, rank: int, dim: int, interleaved: int) -> None:
    batch, seq, heads, size = 2, 3, 2, 8
    shape = [batch, seq, heads * size] if rank == 3 else [batch, heads, seq, size]
    half = (dim or size) // 2
    attrs = {"num_heads": heads, "rotary_embedding_dim": dim} if dim else {}
    positions = (np.array([2], np.int64) if ids == "offset" else
                 RNG.integers(0, 7, [batch, seq]).astype(np.int64))
    feeds = {"x": _floats(*shape), "pos": positions, "cos": _floats(7, half),
             "sin": _floats(7, half)}
    check(*ms_model("RotaryEmbedding", feeds, interleaved=interleaved, **attrs))


def _gqa(seq: int, prior: int, lengths: list[int], packed: bool = False, rotary: bool = False,
         bias: bool = False, total: int | None = None, **attrs):
    """A GroupQueryAttention case: 4 query heads over 2 key/value heads of 16 channels, a past
    of prior steps, and each batch's total length."""
    batch, heads, kv_heads, size = len(lengths), 4, 2, 16
    q = _floats(batch, seq, heads * size)
    k, v = _floats(batch, seq, kv_heads * size), _floats(batch, seq, kv_heads * size)
    if packed:
        q, k, v = np.concatenate([q, k, v], axis=-1), None, None
    total = prior + seq if total is None else total
    feeds = {"q": q, "k": k, "v": v,
             "past_k": _floats(batch, kv_heads, prior, size) if prior else None,
             "past_v": _floats(batch, kv_heads, prior, size) if prior else None,
             "seqlens_k": np.array(lengths, np.int32) - 1,
             "total": np.array(total, np.int32),
             "cos": _floats(12, size // 2) if rotary else None,
             "sin": _floats(12, size // 2) if rotary else None, "pos": None,
             "bias": _floats(batch, 1, seq, total) if bias else None}
    outs = ["y", "present_k", "present_v"] if prior else ["y"]
    return ms_model("GroupQueryAttention", feeds, outs, num_heads=heads, kv_num_heads=kv_heads,
                    do_rotary=int(rotary), **attrs)


@needs_recent
@pytest.mark.parametrize("packed", [False, True])
def test_group_query_attention_prompt(packed: bool) -> None:
    """A right-padded prompt: the second batch has 2 tokens of 4."""
    model, feeds = _gqa(4, 0, [4, 2], packed=packed)
    expected = _onnxruntime(model, feeds)
    expected[0][1, 2:] = 0  # rows past a batch's length are unspecified
    for engine in ("openvino", "shim"):
        [got] = ExtgenBackend.prepare(model, engine=engine).run(list(feeds.values()))
        got[1, 2:] = 0
        np.testing.assert_allclose(got, expected[0], rtol=1e-5, atol=1e-5, err_msg=engine)


@pytest.mark.parametrize("seq", [1, 3])
@pytest.mark.parametrize("rotary", [False, True])
def test_group_query_attention_with_cache(rotary: bool, seq: int) -> None:
    """One step for two batches, or three (onnxruntime takes one batch then)."""
    check(*_gqa(seq, 5, [5 + seq] * (2 if seq == 1 else 1), rotary=rotary))


@needs_recent
@pytest.mark.parametrize("interleaved", [0, 1])
def test_group_query_attention_rotary_prompt(interleaved: int) -> None:
    check(*_gqa(3, 0, [3, 3], rotary=True, rotary_interleaved=interleaved))


@pytest.mark.parametrize("rotary", [False, True])
@pytest.mark.parametrize(("lengths", "total"), [([5, 3], 5), ([4, 2], 4)])
def test_group_query_attention_ragged_cache(lengths: list[int], total: int, rotary: bool) -> None:
    """One step for batches whose pasts differ (4 and 2 rows, or 3 and 1), in a cache that
    grows (total 5 of 4 + 1 rows) or in a fixed buffer of 4 rows (total 4)."""
    check(*_gqa(1, 4, lengths, rotary=rotary, total=total))


@needs_recent
def test_group_query_attention_window_softcap_bias_scale() -> None:
    check(*_gqa(3, 4, [7], bias=True, local_window_size=2, softcap=1.5, scale=0.3))


@pytest.mark.parametrize(("op", "feeds", "attrs", "named"), [
    ("Attention", {"x": _floats(1, 2, 8), "w": _floats(8, 24)}, {"do_rotary": 1}, "do_rotary"),
    ("GroupQueryAttention", {"q": _floats(1, 1, 8), "k": _floats(1, 1, 8), "v": _floats(1, 1, 8),
                             **dict.fromkeys(["past_k", "past_v", "seqlens", "total", "cos", "sin",
                                              "pos", "bias", "sink"]),
                             "k_scale": _floats(1)}, {"kv_num_heads": 1}, "k_scale"),
])
def test_unsupported_forms_are_named(op: str, feeds: dict, attrs: dict, named: str) -> None:
    """An option we cannot translate stops the conversion with one line naming it."""
    model, _ = ms_model(op, feeds, num_heads=1, **attrs)
    with pytest.raises(ConversionError, match=named):
        ExtgenBackend.prepare(model, engine="shim")
