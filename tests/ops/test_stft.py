"""ONNX STFT as STFT-15, in real OpenVINO and in the shim, against the DFT sum of each windowed
frame written here; a both-sided request is refused in one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model
from tests.front.test_onnx_errors import convert_error


def _expected(signal, step, window):
    size = window.size
    count = (signal.shape[1] - size) // step + 1
    k, t = np.arange(size // 2 + 1)[:, None], np.arange(size)[None, :]
    basis = np.exp(-2j * np.pi * k * t / size)  # [bins, size]
    frames = np.stack([signal[:, f * step:f * step + size, 0] * window for f in range(count)], 1)
    spectrum = frames @ basis.T  # [batch, frames, bins]
    return np.stack([spectrum.real, spectrum.imag], axis=-1)


@pytest.mark.parametrize("with_window", [True, False])
def test_stft(with_window: bool) -> None:
    signal = np.random.default_rng(17).standard_normal((2, 50, 1)).astype(np.float32)
    window = np.hanning(12).astype(np.float32) if with_window else np.ones(12, np.float32)
    names = ["signal", "step", "window"] if with_window else ["signal", "step", "", "length"]
    node = helper.make_node("STFT", names, ["y"])
    inits = {"step": np.array(5, np.int64)}
    inits |= {"window": window} if with_window else {"length": np.array(12, np.int64)}
    model = make_model([node], [("signal", TensorProto.FLOAT, [2, 50, 1])],
                       [("y", TensorProto.FLOAT, None)], initializers=inits, opset=17)
    for engine in ("openvino", "shim"):
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([signal])
        np.testing.assert_allclose(got, _expected(signal, 5, window), rtol=1e-4, atol=1e-4,
                                   err_msg=engine)


def test_a_both_sided_stft_is_refused(tmp_path: Path, capsys) -> None:
    node = helper.make_node("STFT", ["signal", "step"], ["y"], onesided=0)
    model = make_model([node], [("signal", TensorProto.FLOAT, [1, 64, 1])],
                       [("y", TensorProto.FLOAT, None)],
                       initializers={"step": np.array(8, np.int64)}, opset=17)
    onnx.save(model, tmp_path / "m.onnx")
    assert "one-sided" in convert_error(capsys, tmp_path / "m.onnx")
