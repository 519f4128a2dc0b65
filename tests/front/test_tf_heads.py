"""Small TF models around the new ops (tests/tf_head_models.py): a detector (box decoder, soft
NonMaxSuppressionV5, CropAndResize head) and a speech front end (AudioSpectrogram, Mfcc, dense
layers), frozen and as SavedModels, match TF's outputs in the shim and in OpenVINO on two
inputs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine
from tests.tf_head_models import MODELS, head_model

FORMS = {"frozen": "frozen.pb", "saved_model": "saved_model"}
KEY_OPS = {"detector": {"NonMaxSuppression", "GatherND"}, "speech": {"RDFT", "MatMul"}}


def _as_input(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """x (NHWC) in the layout the IR's input has (NCHW where the converter turns it so)."""
    nchw = x.transpose(0, 3, 1, 2) if x.ndim == 4 else x
    return nchw if x.shape != tuple(shape) and nchw.shape == tuple(shape) else x


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", MODELS)
def test_head_model_matches_tf(name: str, form: str, tmp_path: Path) -> None:
    folder = head_model(name)
    xml = convert(ConvertOptions(folder / FORMS[form], output_dir=tmp_path,
                                 input_shape=[list(MODELS[name])])).xml
    assert KEY_OPS[name] <= set(re.findall(r'type="(\w+)"', xml.read_text()))
    xs = [np.load(folder / f"input{s}.npy") for s in ("", "2")]
    wants = [list(np.load(folder / f"expected{s}.npz").values()) for s in ("", "2")]
    assert np.abs(wants[0][0] - wants[1][0]).max() > 1e-2  # the output depends on the input
    for engine in ("shim", "openvino"):
        runner = open_engine(engine, xml, "CPU")
        for x, want in zip(xs, wants, strict=True):
            spec = runner.inputs()[0]
            gots = list(runner.run({spec.name: _as_input(x, spec.shape)}).values())
            assert len(gots) == len(want), engine
            for got, expected in zip(gots, want, strict=True):
                np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5, err_msg=engine)
