"""Quantized versions of two tests/torch_corpus.py exports, made by onnxruntime's quantization
tools: resnet18 and BERT with `quantize_static` (QDQ format, int8 weights per channel, uint8
activations calibrated on a few random inputs), BERT with `quantize_dynamic` (int8 MatMul
weights, activations quantized at run time). Written once per machine beside the source
entry, into <model>-ts-<kind>/ with the source's inputs and onnxruntime's outputs on the
quantized model.

    folder = quantized("resnet18", "qdq")
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from tests.torch_corpus import cache_dir, load, materialize, reference

__all__ = ["QUANTIZED", "quantized"]

QUANTIZED = (("resnet18", "qdq"), ("bert", "dynamic"), ("bert", "qdq"))


def _like(rng: np.random.Generator, value: np.ndarray) -> np.ndarray:
    """Random values shaped like value: normal floats, or integers up to its largest (ids)."""
    if value.dtype.kind in "iu":
        return rng.integers(0, int(value.max()) + 1, value.shape).astype(value.dtype)
    return rng.standard_normal(value.shape).astype(value.dtype)


def _calibration(inputs: dict[str, np.ndarray]):
    from onnxruntime.quantization import CalibrationDataReader

    class Random(CalibrationDataReader):
        """Four random feeds shaped like the model's inputs."""

        def __init__(self) -> None:
            rng = np.random.default_rng(16)
            self.feeds = iter([{k: _like(rng, v) for k, v in inputs.items()} for _ in range(4)])

        def get_next(self):
            return next(self.feeds, None)

    return Random()


def _quantize(source: Path, kind: str, target: Path) -> None:
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static

    model = source / "model.onnx"
    if kind == "qdq":
        quantize_static(model, target, _calibration(load(source, "inputs")),
                        quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    else:
        quantize_dynamic(model, target, weight_type=QuantType.QInt8)


def quantized(model: str, kind: str) -> Path:
    """The cache folder of one quantized model, built on first use."""
    source = materialize(model, "ts")
    root = cache_dir()
    folder = root / f"{model}-ts-{kind}"
    if folder.is_dir():
        return folder
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.is_dir():
            tmp = Path(tempfile.mkdtemp(prefix=f".{model}-{kind}-", dir=root))
            try:
                _quantize(source, kind, tmp / "model.onnx")
                for suffix in ("", "2"):
                    feeds = load(source, f"inputs{suffix}")
                    np.savez(tmp / f"inputs{suffix}.npz", **feeds)
                    np.savez(tmp / f"expected{suffix}.npz", **reference(tmp / "model.onnx", feeds))
                os.replace(tmp, folder)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return folder
