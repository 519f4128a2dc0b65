#!/usr/bin/env python3
"""Conversion at node count: a chain of N Add nodes (y_i = y_{i-1} + x) through `extgen convert`.

Usage: chain_bench.py [N]   (default 100000)
Prints wall time and peak RSS against the issue's targets (100k nodes: < 30 s, < 300 MiB).
The model is written once per N into ~/.cache/extgen/chain/.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import EXTGEN, measure  # noqa: E402


def build(count: int) -> Path:
    import onnx
    from onnx import TensorProto, helper

    path = Path.home() / ".cache" / "extgen" / "chain" / f"add_{count}.onnx"
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    nodes = [helper.make_node("Add", [f"y{i}" if i else "x", "x"], [f"y{i + 1}"])
             for i in range(count)]
    graph = helper.make_graph(nodes, "chain",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
                              [helper.make_tensor_value_info(f"y{count}", TensorProto.FLOAT,
                                                             [1, 16])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    model = build(count)
    with tempfile.TemporaryDirectory() as tmp:
        wall, peak = measure([*EXTGEN, "convert", "--input_model", str(model),
                              "--output_dir", tmp])
    print(f"{count} Add nodes: {wall:.1f} s, peak {peak:.0f} MiB "
          f"(targets at 100k: < 30 s, < 300 MiB); {peak * 2**20 / count:.0f} bytes per node")


if __name__ == "__main__":
    main()
