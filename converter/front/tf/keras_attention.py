"""Keras' transformer layers as TensorFlow ops: LayerNormalization (Mean, SquaredDifference,
Rsqrt) and MultiHeadAttention (Einsum with Keras' own equations for a [batch, time, features]
query, attention over the time axis, a causal mask if the call asks)."""

from __future__ import annotations

import numpy as np

from converter.front.tf.keras_layers import F32, Builder, layer, weights_of

__all__: list[str] = []

_PROJECT, _SCORE, _COMBINE, _OUTPUT = ("abc,cde->abde", "aecd,abcd->acbe", "acbe,aecd->abcd",
                                       "abcd,cde->abe")


def _mean(b: Builder, name: str, x: str, axes: list[int]) -> str:
    return b.node("Mean", name, [x, b.const(name, np.array(axes, np.int32))], T=F32,
                  keep_dims=True, Tidx=np.int32)


@layer("LayerNormalization")
def _layer_norm(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    """(x - mean) / sqrt(var + eps) * gamma + beta over the layer's (trailing) axes."""
    rank = len(cfg["__build__"]["input_shape"])
    axes = sorted(a % rank for a in ([cfg["axis"]] if isinstance(cfg["axis"], int)
                                     else cfg["axis"]))
    if cfg.get("rms_scaling") or axes != list(range(rank - len(axes), rank)):
        msg = "LayerNormalization with rms_scaling or over other than the last axes"
        raise KeyError(msg)
    w = list(weights_of(cfg))
    mean = _mean(b, name, xs[0], axes)
    var = _mean(b, name, b.node("SquaredDifference", name, [xs[0], mean], T=F32), axes)
    inv = b.node("Rsqrt", name, [b.node("AddV2", name, [var, b.const(
        name, F32.type(cfg["epsilon"]))], T=F32)], T=F32)
    if cfg.get("scale", True):
        inv = b.node("Mul", name, [inv, b.const(name, w.pop(0))], T=F32)
    y = b.node("Mul", name, [b.node("Sub", name, [xs[0], mean], T=F32), inv], T=F32)
    if cfg.get("center", True):
        y = b.node("AddV2", name, [y, b.const(name, w.pop(0))], T=F32)
    return y


def _einsum(b: Builder, name: str, equation: str, xs: list[str]) -> str:
    return b.node("Einsum", name, xs, T=F32, N=len(xs), equation=equation)


def _dense(b: Builder, name: str, cfg: dict, sub: str, equation: str, x: str) -> str:
    """One of the attention's EinsumDense projections, its bias broadcast over batch and
    time."""
    w = weights_of(cfg, sub)
    y = _einsum(b, name, equation, [x, b.const(name, w[0])])
    return b.node("AddV2", name, [y, b.const(name, w[1])], T=F32) if len(w) > 1 else y


def _causal(cfg: dict) -> np.ndarray:
    """What a causal mask adds to the scores: a large negative past the query's own step (as
    Keras' masked softmax adds)."""
    shapes = cfg["__build__"]["shapes_dict"]
    steps = [shapes["query_shape"][1], shapes["value_shape"][1]]
    if None in steps:
        msg = "MultiHeadAttention with a causal mask over a sequence of unknown length"
        raise KeyError(msg)
    return np.triu(np.full(steps, -1e9, F32), k=1)


@layer("MultiHeadAttention")
def _attention(b: Builder, name: str, cfg: dict, xs: list[str]) -> str:
    """softmax(q k / sqrt(key_dim)) v per head, then the output projection (dropout is
    inference's identity)."""
    query_shape = cfg["__build__"]["shapes_dict"]["query_shape"]
    if len(query_shape) != 3 or cfg.get("attention_axes") not in (None, [1], 1):
        msg = "MultiHeadAttention on other than [batch, time, features] inputs"
        raise KeyError(msg)
    if cfg.get("use_gate") or cfg.get("sliding_window") is not None:
        msg = "MultiHeadAttention with a gate or a sliding window"
        raise KeyError(msg)
    query, value = xs[0], xs[1]
    key = xs[2] if len(xs) > 2 else value
    q = _dense(b, name, cfg, "query_dense", _PROJECT, query)
    q = b.node("Mul", name, [q, b.const(name, F32.type(1 / np.sqrt(cfg["key_dim"])))], T=F32)
    k = _dense(b, name, cfg, "key_dense", _PROJECT, key)
    v = _dense(b, name, cfg, "value_dense", _PROJECT, value)
    scores = _einsum(b, name, _SCORE, [k, q])  # [batch, heads, query time, key time]
    if cfg["__call__"].get("use_causal_mask"):
        scores = b.node("AddV2", name, [scores, b.const(name, _causal(cfg))], T=F32)
    scores = b.node("Softmax", name, [scores], T=F32)
    heads = _einsum(b, name, _COMBINE, [scores, v])
    return _dense(b, name, cfg, "output_dense", _OUTPUT, heads)
