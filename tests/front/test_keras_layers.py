"""The .keras reader on tiny Keras models (tests/keras_units.py, saved by TensorFlow in a child
process): recurrent layers unrolled in all their variants (return_sequences, go_backwards,
reset_after, no bias, every Bidirectional merge mode, an asymmetric backward layer), nested
Sequential and functional models, attention with a separate key and a narrower value or a
causal mask, layer norm over two axes, MelSpectrogram (Hamming window shorter than the FFT,
magnitudes, a reference power, top_db; and power without decibels) with dilated and strided
Conv1D; each matches TF's own output in the shim and in
OpenVINO. A setting not read is one format error naming the layer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.errors import ModelFormatError
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine
from tests.keras_units import keras_unit

MATCHING = ("recurrent", "bidirectional", "nested", "sequential", "causal", "audio")


def _convert(folder: Path, out: Path) -> Path:
    shape = list(np.load(folder / "input.npy").shape)
    return convert(ConvertOptions(folder / "model.keras", output_dir=out,
                                  input_shape=[shape])).xml


@pytest.mark.parametrize("name", MATCHING)
def test_keras_model_matches_tf(name: str, tmp_path: Path) -> None:
    folder = keras_unit(name)
    xml = _convert(folder, tmp_path)
    for suffix in ("", "2"):
        x, want = np.load(folder / f"input{suffix}.npy"), np.load(folder / f"expected{suffix}.npy")
        for engine in ("shim", "openvino"):
            runner = open_engine(engine, xml, "CPU")
            spec = runner.inputs()[0]
            feed = x.transpose(0, 3, 1, 2) if tuple(spec.shape) != x.shape else x
            got = next(iter(runner.run({spec.name: feed}).values()))
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-5, err_msg=engine)
    first, second = (np.load(folder / f"expected{s}.npy") for s in ("", "2"))
    assert np.abs(first - second).max() > 1e-3  # the output depends on the input


def test_recurrent_layers_are_unrolled_into_plain_ops(tmp_path: Path) -> None:
    text = _convert(keras_unit("recurrent"), tmp_path).read_text()
    assert "TensorIterator" not in text and 'type="Loop"' not in text
    assert 'type="Sigmoid"' in text and 'type="Tanh"' in text


@pytest.mark.parametrize(("name", "problem"), [
    ("state", r"LSTM returning its state"),
    ("mask", r"MultiHeadAttention \('multi_head_attention'\) called with \['attention_mask'\]")])
def test_setting_not_read_is_named(name: str, problem: str, tmp_path: Path) -> None:
    folder = keras_unit(name)
    with pytest.raises(ModelFormatError, match=problem + r".*--saved_model_dir"):
        convert(ConvertOptions(folder / "model.keras", output_dir=tmp_path))
