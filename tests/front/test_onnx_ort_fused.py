"""Transformer graphs as onnxruntime's optimizer fuses them (com.microsoft Attention,
EmbedLayerNormalization, SkipLayerNormalization, BiasGelu, FastGelu) convert and match
onnxruntime within 1e-4 relative, in OpenVINO and in the shim, padding masks included."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from converter.onnx_backend import ExtgenBackend
from tests.front.ort_fused_models import HEADS, HIDDEN, LAYERS, MODELS, VOCAB, materialize
from tests.ort_oracle import needs_recent

RNG = np.random.default_rng(16)


def _feeds(name: str) -> dict[str, np.ndarray]:
    """Two sequences, the second padded (BERT: at its end; GPT-2: its first two past steps)."""
    if name.startswith("bert"):
        mask = np.ones((2, 7), np.int64)
        mask[1, 5:] = 0
        return {"input_ids": RNG.integers(0, VOCAB, (2, 7)), "attention_mask": mask,
                "token_type_ids": RNG.integers(0, 2, (2, 7))}
    mask = np.ones((2, 7), np.int64)
    mask[1, :2] = 0
    past = {f"past_{kv}{i}": RNG.standard_normal((2, HEADS, 4, HIDDEN // HEADS), np.float32)
            for i in range(LAYERS) for kv in "kv"}
    return {"input_ids": RNG.integers(0, VOCAB, (2, 3)), "attention_mask": mask, **past}


@needs_recent
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MODELS))
def test_fused_transformer_matches_onnxruntime(name: str) -> None:
    path = materialize(name)
    model = onnx.load(path)
    fused = {n.op_type for n in model.graph.node if n.domain == "com.microsoft"}
    assert MODELS[name][1] <= fused, f"the optimizer fused only {sorted(fused)}"
    feeds = _feeds(name)
    expected = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, feeds)
    assert np.abs(expected[0][0] - expected[0][1]).max() > 1e-3  # the output depends on the input
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(feeds)
        assert len(got) == len(expected), engine
        for e, g in zip(expected, got):
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5, err_msg=engine)
