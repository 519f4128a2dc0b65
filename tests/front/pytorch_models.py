"""Real PyTorch architectures for the PyTorch frontend's tests, saved once per machine as a
torch.export program (model.pt2) and a TorchScript trace (model.pt) in
~/.cache/extgen/torch-<version>/pytorch-frontend/<model>/, with the inputs to run them on
(inputs.npz: arg0, arg1, ...), torch's outputs (expected.npz: out0, out1, ... in the module's
order) and ovc's (ovc.npz: openvino.convert_model on the program, run at f32), the oracle's
check, or ovc's refusal (ovc_refused.txt). Builders are tests/torch_models.py's and
tests/torch_sequence_models.py's (random weights, fixed seeds), plus three more torchvision
classifiers.

    folder = materialize("resnet18")
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.cache_folder import write_once
from tests.torch_corpus import cache_dir
from tests.torch_models import VISION_BUILDERS, _classifier
from tests.torch_sequence_models import SEQUENCE_BUILDERS

__all__ = ["MODELS", "OVC_REFUSES", "load", "materialize"]

_BUILDERS = {
    **{k: VISION_BUILDERS[k] for k in ("resnet18", "mobilenet_v3_small", "efficientnet_b0",
                                       "convnext_tiny", "vit", "lraspp")},
    "squeezenet1_1": _classifier("squeezenet1_1", 64),
    "shufflenet_v2_x0_5": _classifier("shufflenet_v2_x0_5", 64),
    "densenet121": _classifier("densenet121", 64),
    **{k: SEQUENCE_BUILDERS[k] for k in ("bert", "gpt2_past", "wav2vec2", "bilstm")},
}
MODELS = tuple(_BUILDERS)
# ovc 2026 cannot convert these (GPT-2's cache starts as an empty 1-D tensor that torch.cat
# skips; ovc's Concat refuses it), where extgen does
OVC_REFUSES = ("gpt2_past",)


def load(folder: Path, stem: str) -> list[np.ndarray]:
    """One of the folder's .npz files as its arrays in order."""
    with np.load(folder / f"{stem}.npz") as data:
        return [data[k] for k in sorted(data.files, key=lambda k: int(k[3:]))]


def materialize(model: str) -> Path:
    return write_once(cache_dir() / "pytorch-frontend" / model, lambda tmp: _write(model, tmp))


def _flat(outputs) -> list:
    import torch

    return [outputs] if isinstance(outputs, torch.Tensor) else list(outputs)


def _write(model: str, out: Path) -> None:
    import openvino as ov
    import torch
    from openvino.frontend import OpConversionFailure

    from tests.torchvision_ops import import_torchvision

    import_torchvision()  # first: transformers imports it too where installed
    torch.manual_seed(1234)
    module, args, args2, _ = _BUILDERS[model]()
    program = torch.export.export(module, args)
    torch.export.save(program, str(out / "model.pt2"))
    with torch.no_grad():
        torch.jit.trace(module, args, strict=False, check_trace=False).save(str(out / "model.pt"))
        expected = [t.numpy() for t in _flat(module(*args2))]
    np.savez(out / "inputs.npz", **{f"arg{k}": a.numpy() for k, a in enumerate(args2)})
    np.savez(out / "expected.npz", **{f"out{k}": v for k, v in enumerate(expected)})
    try:
        converted = ov.convert_model(program)
    except OpConversionFailure as err:  # recorded: the test says which models ovc refuses
        (out / "ovc_refused.txt").write_text(str(err))
        return
    ovc = ov.compile_model(converted, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(
        [a.numpy() for a in args2])
    np.savez(out / "ovc.npz", **{f"out{k}": ovc[k] for k in range(len(expected))})
