#!/usr/bin/env python3
"""Two transformer-era benchmark models, written here in torch with seeded random weights and
exported to ONNX (opset 17): a BERT-base-shaped encoder (12 layers, hidden 768, 12 heads,
sequence 128, erf GELU) and convnext_tiny (depths 3-3-9-3, widths 96-768, 224x224 input).

Made once per machine into the light zoo's cache folder, with the same files as light_zoo.py:
python benchmarks/transformer_zoo.py [NAME ...]"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
from light_zoo import cache_dir, store

__all__ = ["TRANSFORMERS", "materialize_transformers"]

TRANSFORMERS = ("bert_base", "convnext_tiny")


def _bert(torch):
    nn = torch.nn

    class Layer(nn.Module):
        def __init__(self, hidden: int, heads: int) -> None:
            super().__init__()
            self.heads = heads
            self.qkv = nn.Linear(hidden, 3 * hidden)
            self.proj = nn.Linear(hidden, hidden)
            self.norm1, self.norm2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
            self.up, self.down = nn.Linear(hidden, 4 * hidden), nn.Linear(4 * hidden, hidden)

        def forward(self, x):
            b, s, h = x.shape
            q, k, v = self.qkv(x).reshape(b, s, 3, self.heads, h // self.heads).permute(
                2, 0, 3, 1, 4)
            att = torch.softmax(q @ k.transpose(-1, -2) / (h // self.heads) ** 0.5, dim=-1)
            x = self.norm1(x + self.proj((att @ v).transpose(1, 2).reshape(b, s, h)))
            return self.norm2(x + self.down(nn.functional.gelu(self.up(x))))

    class Bert(nn.Module):
        def __init__(self, vocab=30522, hidden=768, heads=12, layers=12, seq=128) -> None:
            super().__init__()
            self.words, self.positions = nn.Embedding(vocab, hidden), nn.Embedding(seq, hidden)
            self.norm = nn.LayerNorm(hidden)
            self.layers = nn.ModuleList(Layer(hidden, heads) for _ in range(layers))

        def forward(self, ids):
            x = self.norm(self.words(ids) + self.positions.weight[None, : ids.shape[1]])
            for layer in self.layers:
                x = layer(x)
            return x

    ids = torch.from_numpy(np.random.default_rng(1).integers(0, 30522, (1, 128)))
    return Bert(), ids


def _convnext(torch):
    nn = torch.nn

    class ChannelNorm(nn.LayerNorm):  # LayerNorm over C of an NCHW tensor
        def forward(self, x):
            return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)

    class Block(nn.Module):
        def __init__(self, dim: int) -> None:
            super().__init__()
            self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
            self.norm = nn.LayerNorm(dim)
            self.up, self.down = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)
            self.gamma = nn.Parameter(torch.full((dim,), 0.5))

        def forward(self, x):
            y = self.norm(self.dw(x).permute(0, 2, 3, 1))
            y = self.gamma * self.down(nn.functional.gelu(self.up(y)))
            return x + y.permute(0, 3, 1, 2)

    class ConvNeXt(nn.Module):
        def __init__(self, depths=(3, 3, 9, 3), dims=(96, 192, 384, 768)) -> None:
            super().__init__()
            stages = [nn.Conv2d(3, dims[0], 4, stride=4), ChannelNorm(dims[0])]
            for i, (depth, dim) in enumerate(zip(depths, dims)):
                if i:
                    stages += [ChannelNorm(dims[i - 1]), nn.Conv2d(dims[i - 1], dim, 2, stride=2)]
                stages += [Block(dim) for _ in range(depth)]
            self.features = nn.Sequential(*stages)
            self.norm, self.head = nn.LayerNorm(dims[-1]), nn.Linear(dims[-1], 1000)

        def forward(self, x):
            return self.head(self.norm(self.features(x).mean((2, 3))))

    x = torch.from_numpy(np.random.default_rng(2).standard_normal((1, 3, 224, 224)).astype(
        np.float32))
    return ConvNeXt(), x


def _export(name: str) -> tuple[bytes, np.ndarray]:
    import torch

    torch.manual_seed(0)
    module, x = {"bert_base": _bert, "convnext_tiny": _convnext}[name](torch)
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(module.eval(), (x,), buffer, dynamo=False, opset_version=17,
                          input_names=["input"], output_names=["output"])
    return buffer.getvalue(), x.numpy()


def materialize_transformers(names=TRANSFORMERS, out: Path | None = None) -> Path:
    """Make <out>/<name>.onnx, .input.npy and .expected.npy (onnxruntime's) for each name."""

    out = out or cache_dir()
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        if (out / f"{name}.expected.npy").exists():
            continue
        store(out, name, *_export(name))
    return out


if __name__ == "__main__":
    wanted = sys.argv[1:] or list(TRANSFORMERS)
    unknown = sorted(set(wanted) - set(TRANSFORMERS))
    if unknown:
        sys.exit(f"transformer_zoo.py: unknown model(s) {', '.join(unknown)}; "
                 f"known: {', '.join(TRANSFORMERS)}")
    folder = materialize_transformers(wanted)
    for n in wanted:
        size = (folder / f"{n}.onnx").stat().st_size / 2**20
        print(f"{n:14} {size:7.1f} MiB  {folder / n}.onnx")
