"""Small BERT and GPT-2 (transformers, random weights from fixed seeds) exported by torch's
TorchScript exporter, then fused by onnxruntime's transformer optimizer into com.microsoft ops.

Each model is built once per machine into ~/.cache/extgen/ort-fused-<versions>/<name>.onnx, in
a child process (this machine's torchvision does not load, and transformers imports it unless
hidden), under a file lock, appearing by an atomic rename.

    path = materialize("bert")

Run as `python -m tests.front.ort_fused_models NAME OUT` to build one model into OUT.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import warnings
from importlib import metadata
from pathlib import Path

# name: (model_type for the optimizer, the com.microsoft ops the fused graph must hold)
MODELS = {
    "bert": ("bert", {"EmbedLayerNormalization", "Attention", "SkipLayerNormalization",
                      "BiasGelu"}),
    "bert_raw_mask": ("bert", {"Attention", "SkipLayerNormalization", "BiasGelu"}),
    "gpt2_past": ("gpt2", {"SkipLayerNormalization", "FastGelu"}),
}
HIDDEN, HEADS, LAYERS, VOCAB = 32, 2, 2, 64


def cache_dir() -> Path:
    versions = "-".join(metadata.version(d) for d in ("transformers", "torch", "onnxruntime"))
    return Path.home() / ".cache" / "extgen" / f"ort-fused-{versions}"


def materialize(name: str) -> Path:
    """The fused model's path, built first when missing."""
    from tests.child_env import child_env

    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.onnx"
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            tmp = folder / f".{name}.{os.getpid()}.onnx"
            done = subprocess.run([sys.executable, "-m", "tests.front.ort_fused_models", name,
                                   str(tmp)], env=child_env(), capture_output=True, text=True,
                                  check=False)
            if done.returncode:
                raise RuntimeError(f"building {name} failed:\n{done.stderr[-3000:]}")
            tmp.rename(path)
    return path


def _bert(torch):
    from transformers import BertConfig, BertModel

    config = BertConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                        num_attention_heads=HEADS, intermediate_size=2 * HIDDEN,
                        max_position_embeddings=32, attn_implementation="eager")

    class Bert(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = BertModel(config)

        def forward(self, ids, mask, types):
            out = self.inner(input_ids=ids, attention_mask=mask, token_type_ids=types)
            return out.last_hidden_state, out.pooler_output

    ids = torch.randint(0, VOCAB, (2, 7))
    args = (ids, torch.ones_like(ids), torch.zeros_like(ids))
    names = ["input_ids", "attention_mask", "token_type_ids"]
    return Bert(), args, names, ["hidden", "pooled"], {n: {0: "b", 1: "s"} for n in names}


def _gpt2(torch):
    from transformers import GPT2Config, GPT2Model
    from transformers.cache_utils import DynamicCache

    config = GPT2Config(vocab_size=VOCAB, n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS,
                        n_positions=32, attn_implementation="eager")

    class Gpt2(torch.nn.Module):
        """One step over a key/value cache given and returned as plain tensors."""

        def __init__(self) -> None:
            super().__init__()
            self.inner = GPT2Model(config)

        def forward(self, ids, mask, *past):
            cache = DynamicCache()
            for layer in range(LAYERS):
                cache.update(past[2 * layer], past[2 * layer + 1], layer)
            positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, -ids.shape[1]:]
            out = self.inner(input_ids=ids, attention_mask=mask, position_ids=positions,
                        past_key_values=cache, use_cache=True)
            layers = out.past_key_values.layers
            return out.last_hidden_state, *(t for x in layers for t in (x.keys, x.values))

    past = [torch.randn(2, HEADS, 4, HIDDEN // HEADS) for _ in range(2 * LAYERS)]
    args = (torch.randint(0, VOCAB, (2, 3)), torch.ones(2, 7, dtype=torch.int64), *past)
    past_names = [f"past_{kv}{i}" for i in range(LAYERS) for kv in "kv"]
    outputs = ["hidden"] + [f"present_{kv}{i}" for i in range(LAYERS) for kv in "kv"]
    axes = {"input_ids": {0: "b", 1: "s"}, "attention_mask": {0: "b", 1: "t"},
            **{n: {0: "b", 2: "p"} for n in past_names}}
    return Gpt2(), args, ["input_ids", "attention_mask", *past_names], outputs, axes


def _build(name: str, out: Path) -> None:
    sys.modules["torchvision"] = None  # transformers skips it when it cannot be found
    import torch
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    torch.manual_seed(16)
    model_type, _ = MODELS[name]
    module, args, inputs, outputs, axes = (_bert if model_type == "bert" else _gpt2)(torch)
    raw = out.with_suffix(".raw.onnx")
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(module.eval(), args, str(raw), dynamo=False, opset_version=14,
                          input_names=inputs, output_names=outputs, dynamic_axes=axes)
    options = FusionOptions(model_type)
    if name == "bert_raw_mask":
        options.use_raw_attention_mask(True)
        options.enable_embed_layer_norm = False
    fused = optimize_model(str(raw), model_type=model_type, num_heads=HEADS, hidden_size=HIDDEN,
                           opt_level=0, optimization_options=options)
    fused.save_model_to_file(str(out))
    raw.unlink()


if __name__ == "__main__":
    _build(sys.argv[1], Path(sys.argv[2]))
