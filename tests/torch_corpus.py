"""Real PyTorch architectures as ONNX, for the ONNX front's tests: torchvision classification,
detection and segmentation, transformers BERT, GPT-2 with its key/value cache and wav2vec2,
and bidirectional LSTM/GRU nets. Random weights from fixed seeds, the smallest configs that
still hold each architecture's ops; norm layers get non-trivial statistics and affine
parameters (random batch norm is an identity).

Each model is exported through torch.onnx's TorchScript exporter ("ts") and, where it
exports, its dynamo exporter ("dynamo"), and written once per machine into
~/.cache/extgen/torch-<torch version>/<model>-<exporter>/: model.onnx, inputs.npz and
inputs2.npz (by input name), expected.npz and expected2.npz (onnxruntime's outputs, by output
name). A file lock makes concurrent test workers wait for one writer; each folder appears by
an atomic rename. Models are built in a child process (`materialize`), one at a time.

    folder = materialize("resnet18", "ts")
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np

from tests.cache_folder import write_once
from tests.torch_models import LARGE_BUILDERS, VISION_BUILDERS
from tests.torch_sequence_models import SEQUENCE_BUILDERS

__all__ = ["ENTRIES", "MODELS", "cache_dir", "compare", "differences", "load", "materialize",
           "reference"]

MODELS = (*VISION_BUILDERS, *SEQUENCE_BUILDERS)
BUILDERS = {**VISION_BUILDERS, **SEQUENCE_BUILDERS, **LARGE_BUILDERS}  # large: materialize only
# the dynamo exporter: models it exports (detection's data-dependent control flow it does not)
DYNAMO = ("resnet18", "mobilenet_v3_small", "vit", "lraspp", "bert", "gpt2_past", "wav2vec2",
          "bilstm", "bigru")
ENTRIES = tuple((m, "ts") for m in MODELS) + tuple((m, "dynamo") for m in DYNAMO)
_OPSET = {"ts": 17, "dynamo": 18}


def cache_dir() -> Path:
    return Path.home() / ".cache" / "extgen" / f"torch-{metadata.version('torch')}"


def load(folder: Path, stem: str) -> dict[str, np.ndarray]:
    """One of the folder's .npz files as a name -> array dict."""
    with np.load(folder / f"{stem}.npz") as data:
        return {k: data[k] for k in data.files}


def materialize(model: str, exporter: str) -> Path:
    """The cache folder of one corpus entry, built on first use by a child process."""
    folder = cache_dir() / f"{model}-{exporter}"
    if not folder.is_dir():
        from tests.child_env import child_env

        code = f"from tests.torch_corpus import _build_here; _build_here({model!r}, {exporter!r})"
        done = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True,
                              text=True, check=False)
        if done.returncode:
            msg = f"building {model}-{exporter} failed:\n{done.stderr[-3000:]}"
            raise RuntimeError(msg)
    return folder


def differences(folder: Path, xml: Path, engine: str) -> dict[str, float]:
    """Per output, the engine's largest difference from onnxruntime over the reference's
    magnitude; a detector's outputs are compared as sets of detections."""
    from converter.runtime.engines import open_engine

    return compare(open_engine(engine, xml, "CPU").run(load(folder, "inputs")),
                   load(folder, "expected"))


def compare(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> dict[str, float]:
    """Per output of want, got's largest difference over want's magnitude (see differences)."""
    if {"boxes", "scores", "labels"} <= set(want):
        return _detection_differences(got, want)
    return {name: _relative(got[name], value) for name, value in want.items()}


def _relative(got: np.ndarray, want: np.ndarray) -> float:
    if got.shape != want.shape:
        return float("inf")
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-6)
    return float(np.abs(got.astype(np.float64) - want).max(initial=0.0)) / scale


def _detection_differences(got: dict, want: dict) -> dict[str, float]:
    """Each reference detection against the nearest one of its label in got (the order of
    equal scores is free); the counts must agree."""
    if len(got["scores"]) != len(want["scores"]):
        return {"count": float("inf")}
    box_diff, score_diff = 0.0, 0.0
    for box, score, label in zip(want["boxes"], want["scores"], want["labels"], strict=True):
        same = np.flatnonzero(got["labels"] == label)
        if not len(same):
            return {"labels": float("inf")}
        gaps = np.abs(got["boxes"][same] - box).max(axis=1) + np.abs(got["scores"][same] - score)
        best = same[int(np.argmin(gaps))]
        box_diff = max(box_diff, float(np.abs(got["boxes"][best] - box).max()))
        score_diff = max(score_diff, abs(float(got["scores"][best]) - float(score)))
    scale = max(float(np.abs(want["boxes"]).max(initial=0.0)), 1.0)
    return {"boxes": box_diff / scale, "scores": score_diff}


def _export(module, args: tuple, names: tuple[list[str], list[str]], exporter: str,
            path: Path) -> None:
    import torch

    inputs, outputs = names
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, str(path), dynamo=exporter == "dynamo",
                          opset_version=_OPSET[exporter], input_names=inputs,
                          output_names=outputs, **({"external_data": False, "verbose": False}
                                                   if exporter == "dynamo" else {}))


def reference(path: Path, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """onnxruntime's outputs of the model at path, by output name."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds), strict=True))


def _write(model: str, exporter: str, out: Path) -> None:
    import torch

    from tests.torchvision_ops import import_torchvision

    import_torchvision()  # first: transformers imports it too where installed
    torch.manual_seed(1234)
    module, args, args2, names = BUILDERS[model]()
    _export(module, args, names, exporter, out / "model.onnx")
    for suffix, values in (("", args), ("2", args2)):
        feeds = {n: v.numpy() for n, v in zip(names[0], values, strict=True)}
        np.savez(out / f"inputs{suffix}.npz", **feeds)
        np.savez(out / f"expected{suffix}.npz", **reference(out / "model.onnx", feeds))


def _build_here(model: str, exporter: str) -> Path:
    """Build one entry in this process (which imports torch), one process at a time."""
    return write_once(cache_dir() / f"{model}-{exporter}", lambda tmp: _write(model, exporter, tmp))


if __name__ == "__main__":
    import time

    wanted = sys.argv[1:]
    for name, kind in ENTRIES:
        if wanted and name not in wanted:
            continue
        start = time.perf_counter()
        try:
            path = _build_here(name, kind)
        except Exception as err:  # noqa: BLE001 - report and go on to the next entry
            path = f"FAILED {type(err).__name__}: {str(err).splitlines()[0][:200]}"
        print(f"{name:20} {kind:7} {time.perf_counter() - start:6.1f} s  {path}", flush=True)
