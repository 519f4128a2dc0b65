"""Kaldi nnet3 dim ranges concatenated back into what they cut go, as MO's RemoveUselessCrops
removed them (converter/back/nop_elimination.py); in another order they stay (MO removed those
too, and its IR then computed another function)."""

from __future__ import annotations

import collections
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.front import kaldi_nets as kn
from tests.front import kaldi_writer as kw


def _net(path: Path, ranges: list[tuple[int, int]]) -> tuple[Path, callable]:
    """input (4) -> affine -> the dim ranges (offset, dim), appended in that order -> a fixed
    scale; and its numpy forward pass."""
    (a_type, a_items, a_fn), (s_type, s_items, s_fn) = kn.affine(4, 4), kn.fixed_scale(4)
    names = [f"r{i}" for i in range(len(ranges))]
    config = ["input-node name=input dim=4", "component-node name=a component=a input=input",
              *(f"dim-range-node name={n} input-node=a dim-offset={o} dim={d}"
                for n, (o, d) in zip(names, ranges)),
              f"component-node name=s component=s input=Append({', '.join(names)})",
              "output-node name=output input=s objective=linear"]
    path.write_bytes(kw.nnet3(config, [("a", a_type, a_items), ("s", s_type, s_items)], True))

    def forward(x: np.ndarray) -> np.ndarray:
        y = a_fn(x)
        return s_fn(np.concatenate([y[:, o:o + d] for o, d in ranges], axis=1))

    return path, forward


@pytest.mark.parametrize(("ranges", "kept"), [([(0, 2), (2, 2)], 0), ([(0, 1), (1, 3)], 0),
                                              ([(2, 2), (0, 2)], 2), ([(0, 2), (1, 2)], 2)])
def test_dim_ranges_that_rebuild_their_input_go(tmp_path: Path, ranges: list, kept: int) -> None:
    model, forward = _net(tmp_path / "net.raw", ranges)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir")).xml
    types = collections.Counter(layer.get("type") for layer in ET.parse(xml).iter("layer"))
    assert types["StridedSlice"] == kept and types["Concat"] == (1 if kept else 0)
    x = np.random.default_rng(0).standard_normal((1, 4)).astype(np.float32)
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    np.testing.assert_allclose(compiled([x])[compiled.output(0)], forward(x.astype(np.float64)),
                               rtol=1e-4, atol=1e-5)
