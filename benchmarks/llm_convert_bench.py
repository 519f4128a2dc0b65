#!/usr/bin/env python3
"""LLM-size conversion: a Llama-architecture ONNX export with external data (random weights,
built once per machine by this script) through `extgen convert` and `ovc`, same run.

Usage: llm_convert_bench.py [--size 1b|small]
Prints each tool's wall time, peak RSS and the weights it wrote (.bin), and the ratios the
issue sets: extgen's peak RSS over the .bin it writes (target < 1.2) and extgen's wall time over
ovc's (target <= 1.0). The model is cached in ~/.cache/extgen/llm-<size>/.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import EXTGEN, measure  # noqa: E402

# TinyLlama-1.1B's shape, and a small one with the same structure for a quick look
SIZES = {
    "1b": dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=22,
               num_attention_heads=32, num_key_value_heads=4, vocab_size=32000),
    "small": dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                  num_attention_heads=16, num_key_value_heads=4, vocab_size=32000),
}
EXPORT = """
import sys
sys.modules["torchvision"] = None  # not needed, and a CUDA wheel of it beside CPU torch breaks
import torch, transformers
torch.manual_seed(0)
config = transformers.LlamaConfig(**{config}, max_position_embeddings=2048, use_cache=False)
model = transformers.LlamaForCausalLM(config).eval()


class Logits(torch.nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, ids, mask):
        return self.inner(input_ids=ids, attention_mask=mask).logits


ids = torch.ones(1, 16, dtype=torch.int64)
with torch.no_grad():
    torch.onnx.export(Logits(model), (ids, torch.ones_like(ids)), sys.argv[1],
                      input_names=["input_ids", "attention_mask"], output_names=["logits"],
                      opset_version=17, dynamo=False,
                      dynamic_axes={{n: {{0: "batch", 1: "seq"}} for n in ("input_ids",
                                                                        "attention_mask")}})
"""


def build(size: str) -> Path:
    """The exported model (once per machine): weights in one external data file."""
    folder = Path.home() / ".cache" / "extgen" / f"llm-{size}"
    model = folder / "llama.onnx"
    if model.is_file():
        return model
    folder.mkdir(parents=True, exist_ok=True)
    raw = folder / "raw.onnx"
    subprocess.run([sys.executable, "-c", EXPORT.format(config=SIZES[size]), str(raw)],
                   check=True)
    import onnx

    proto = onnx.load(str(raw))  # torch writes one file per tensor past 2 GB: gather them
    onnx.save(proto, str(model), save_as_external_data=True, all_tensors_to_one_file=True,
              location="llama.weights", size_threshold=1024)
    for stray in folder.iterdir():
        if stray.name not in ("llama.onnx", "llama.weights"):
            stray.unlink()
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=SIZES, default="1b")
    size = parser.parse_args().size
    model = build(size)
    weights = (model.parent / "llama.weights").stat().st_size / 2**20
    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp:
        ours = measure([*EXTGEN, "convert", "--input_model", str(model),
                        "--output_dir", tmp])
        ours_bin = (Path(tmp) / "llama.bin").stat().st_size / 2**20
        theirs = measure([str(bindir / "ovc"), str(model), "--output_model",
                          f"{tmp}/ovc/llama.xml"])
        ovc_bin = (Path(tmp) / "ovc" / "llama.bin").stat().st_size / 2**20
    print(f"llama-{size}: ONNX weights {weights:.0f} MiB")
    print(f"{'tool':7} {'wall s':>8} {'peak MiB':>9} {'.bin MiB':>9}")
    print(f"{'extgen':7} {ours[0]:8.1f} {ours[1]:9.0f} {ours_bin:9.0f}")
    print(f"{'ovc':7} {theirs[0]:8.1f} {theirs[1]:9.0f} {ovc_bin:9.0f}")
    print(f"extgen peak RSS / .bin written: {ours[1] / ours_bin:.2f} (target < 1.2); "
          f"wall vs ovc: {ours[0] / theirs[0]:.2f}x (target <= 1.0)")


if __name__ == "__main__":
    main()
