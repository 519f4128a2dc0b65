"""Real PyTorch architectures (tests/torch_corpus.py: torchvision, transformers and recurrent
nets with random weights, exported by torch.onnx's TorchScript and dynamo exporters) convert
with `extgen convert` and match onnxruntime within 1e-4 of each output's magnitude, in the shim
and in OpenVINO; detections match as sets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from extgen.cli import main
from tests.torch_corpus import ENTRIES, compare, differences, load, materialize

TOLERANCE = 1e-4


def _convert(folder: Path, out: Path) -> Path:
    assert main(["convert", "--input_model", str(folder / "model.onnx"), "--output_dir",
                 str(out), "--compress_to_fp16=False"]) == 0
    return out / "model.xml"


@pytest.mark.slow
@pytest.mark.parametrize(("model", "exporter"), ENTRIES, ids=[f"{m}-{e}" for m, e in ENTRIES])
def test_matches_onnxruntime(model: str, exporter: str, tmp_path: Path) -> None:
    folder = materialize(model, exporter)
    want, other = load(folder, "expected"), load(folder, "expected2")
    first = next(iter(want))  # the reference depends on the input
    assert want[first].shape != other[first].shape or not np.allclose(want[first], other[first])
    xml = _convert(folder, tmp_path)
    for engine in ("shim", "openvino"):
        diffs = differences(folder, xml, engine)
        assert max(diffs.values()) <= TOLERANCE, (engine, diffs)


def test_detections_compare_as_sets() -> None:
    want = {"boxes": np.array([[0, 0, 10, 10], [5, 5, 20, 20]], np.float32),
            "scores": np.array([0.9, 0.9], np.float32), "labels": np.array([1, 2])}
    swapped = {k: v[::-1].copy() for k, v in want.items()}  # equal scores: either order
    assert max(compare(swapped, want).values()) == 0
    moved = {**swapped, "boxes": swapped["boxes"] + np.float32(0.5)}
    assert compare(moved, want)["boxes"] == pytest.approx(0.5 / 20)
    assert compare({k: v[:1] for k, v in want.items()}, want) == {"count": float("inf")}
