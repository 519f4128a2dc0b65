"""Real PyTorch architectures (tests/front/pytorch_models.py: torchvision and transformers
nets with random weights) convert straight from a torch.export program and from TorchScript,
and match torch within 1e-4 of each output's magnitude at f32, in the shim and in OpenVINO;
ovc's result on the same program, beside it, agrees too (a check on the oracle), except
where ovc refuses the model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.options import ConvertOptions, InputSpec
from converter.pipeline import convert
from tests.front.pytorch_models import MODELS, OVC_REFUSES, load, materialize

TOLERANCE = 1e-4


def _relative(got: np.ndarray, want: np.ndarray) -> float:
    assert got.shape == want.shape
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-6)
    return float(np.abs(got.astype(np.float64) - want).max(initial=0.0)) / scale


def _options(model: Path, out: Path, inputs: list[np.ndarray]) -> ConvertOptions:
    """f32 weights; TorchScript's input shapes and types given as --input [shape]{type} does."""
    specs = None if model.suffix == ".pt2" else [InputSpec(None, a.shape, a.dtype)
                                                 for a in inputs]
    return ConvertOptions(input_model=model, output_dir=out, inputs=specs)


def _check(folder: Path, model: Path, out: Path) -> None:
    from converter.front.pytorch.framework import FRAMEWORK
    from converter.runtime.engines import open_engine

    inputs, want = load(folder, "inputs"), load(folder, "expected")
    if folder.name in OVC_REFUSES:
        assert "Conversion is failed for" in (folder / "ovc_refused.txt").read_text()
    else:
        for theirs, torch_out in zip(load(folder, "ovc"), want, strict=True):
            assert _relative(theirs, torch_out) <= TOLERANCE  # the oracle agrees with torch
    opts = _options(model, out, inputs)
    graph = FRAMEWORK.load(opts)  # the model's input and output names, in its order
    feeds = dict(zip(graph.graph["input_order"], inputs, strict=True))
    xml = convert(opts).xml
    for engine in ("shim", "openvino"):
        got = open_engine(engine, xml, "CPU").run(feeds)
        diffs = [_relative(got[name], value)
                 for name, value in zip(graph.graph["output_order"], want, strict=True)]
        assert max(diffs) <= TOLERANCE, (engine, diffs)


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_a_torch_export_program_matches_torch(model: str, tmp_path: Path) -> None:
    folder = materialize(model)
    _check(folder, folder / "model.pt2", tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_a_torchscript_trace_matches_torch(model: str, tmp_path: Path) -> None:
    folder = materialize(model)
    _check(folder, folder / "model.pt", tmp_path)


# torch.flatten and friends in these nets follow the batch once the program is translated as
# exported; decomposed to core ATen they become views of the traced sizes (1, ...), an IR that
# declares a dynamic batch and fails to run on 2
DYNAMIC_BATCH = ("resnet18", "convnext_tiny", "squeezenet1_1", "lraspp")


@pytest.mark.slow
@pytest.mark.parametrize("model", DYNAMIC_BATCH)
def test_a_program_runs_on_the_batch_input_shape_frees(model: str, tmp_path: Path) -> None:
    from converter.runtime.engines import open_engine

    folder = materialize(model)
    (x,), (want,) = load(folder, "inputs"), load(folder, "expected")
    xml = convert(ConvertOptions(input_model=folder / "model.pt2", output_dir=tmp_path,
                                 input_shape=[[-1, *x.shape[1:]]])).xml
    other = np.random.default_rng(0).standard_normal(x.shape).astype(x.dtype)
    got = open_engine("openvino", xml, "CPU").run({"x": np.concatenate([x, other, x])})
    (value,) = got.values()
    assert value.shape[0] == 3
    assert max(_relative(value[k:k + 1], want) for k in (0, 2)) <= TOLERANCE
    assert _relative(value[1:2], value[0:1]) > TOLERANCE  # the rows are computed apart
