"""The small light-zoo models convert, load in real OpenVINO and run in the shim, matching
onnxruntime within 1e-4 of the output's magnitude (benchmarks/zoo_check.py covers all nine)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from light_zoo import materialize  # noqa: E402
from zoo_check import _logits_error  # noqa: E402

SMALL = ["squeezenet", "shufflenet", "inception_v1"]


@pytest.fixture(scope="module")
def zoo() -> Path:
    return materialize(SMALL)  # made once per machine, then read from the cache


@pytest.mark.parametrize("engine", ["openvino", "shim"])
@pytest.mark.parametrize("name", SMALL)
def test_zoo_model_matches_onnxruntime(zoo: Path, name: str, engine: str) -> None:
    from converter.onnx_backend import ExtgenBackend

    x = np.load(zoo / f"{name}.input.npy")
    expected = np.load(zoo / f"{name}.expected.npy")
    model = onnx.load(zoo / f"{name}.onnx")
    (y,) = ExtgenBackend.prepare(model, engine=engine).run([x])[:1]
    assert y.shape == expected.shape
    assert np.abs(y - expected).max() <= 1e-4 * np.abs(expected).max()
    assert _logits_error(model, x, engine) <= 1e-4  # a saturated softmax would hide errors
