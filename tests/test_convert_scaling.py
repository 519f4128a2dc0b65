"""Conversion cost grows linearly with node count (issue 17: a 100k-node chain of Add).

Counted, not timed: the Python calls a conversion makes (cProfile counts every call, C ones
too, the same on any machine) and its peak traced memory per node. A pass that rescans the
graph per rewrite, or a writer that holds the whole IR text, fails here long before the
benchmark (`benchmarks/chain_bench.py`) would show it.
"""

from __future__ import annotations

import cProfile
import pstats
import tracemalloc
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model

# traced peak of a chain conversion is about 3.7 KB per node (4.5 KB with a dict per node and
# port, 6.4 KB with the IR text and tree held in memory); the bound leaves room for small
# additions, not for another copy
_PEAK_BYTES_PER_NODE = 4_100


def _chain(folder: Path, count: int) -> Path:
    """y_i = y_{i-1} + x, count times."""
    nodes = [helper.make_node("Add", [f"y{i}" if i else "x", "x"], [f"y{i + 1}"])
             for i in range(count)]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [1, 16])],
                       [(f"y{count}", TensorProto.FLOAT, [1, 16])])
    path = folder / f"chain_{count}.onnx"
    onnx.save(model, path)
    return path


def _calls(model: Path, out: Path) -> int:
    profile = cProfile.Profile()
    profile.enable()
    convert(ConvertOptions(model, output_dir=out))
    profile.disable()
    return pstats.Stats(profile).total_calls


@pytest.mark.slow
def test_work_per_node_does_not_grow_with_the_graph(tmp_path: Path) -> None:
    small, large = _chain(tmp_path, 1_000), _chain(tmp_path, 4_000)
    convert(ConvertOptions(small, output_dir=tmp_path / "warm"))  # imports and registries
    ratio = _calls(large, tmp_path / "large") / _calls(small, tmp_path / "small")
    # linear: about 4 (fixed costs pull it below); a scan of the graph per node makes it ~16
    assert ratio < 4.5, f"4x the nodes made {ratio:.1f}x the calls: something rescans the graph"


@pytest.mark.slow
def test_peak_memory_per_node_stays_bounded(tmp_path: Path) -> None:
    count = 4_000
    model = _chain(tmp_path, count)
    convert(ConvertOptions(model, output_dir=tmp_path / "warm"))
    tracemalloc.start()
    try:
        convert(ConvertOptions(model, output_dir=tmp_path / "ir"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / count < _PEAK_BYTES_PER_NODE, f"{peak / count:.0f} bytes per node at peak"
