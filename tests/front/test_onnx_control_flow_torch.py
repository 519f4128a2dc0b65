"""Control flow as torch's TorchScript exporter writes it: a scripted module's for loop becomes
an ONNX Loop, a data-dependent `if` an If; converted, they match onnxruntime in OpenVINO and in
the shim."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch

from tests.front.test_onnx_control_flow import check_against_onnxruntime


class _Recurrent(torch.nn.Module):
    """n steps of h = tanh(W h + b) + x, then a branch on the sign of the sum."""

    def __init__(self) -> None:
        super().__init__()
        self.cell = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, n: int) -> torch.Tensor:
        h = x
        for _ in range(n):
            h = torch.tanh(self.cell(h)) + x
        if h.sum() > 0:
            h = h * 2
        else:
            h = h - 1
        return h


class _Accumulate(torch.nn.Module):
    """A while loop over a carried pair: halve a, add it to b, until a is small."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        while a.abs().max() > 0.1:
            a = a / 2
            b = b + a
        return b


def _export(module: torch.nn.Module, args: tuple, names: list[str]) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(torch.jit.script(module), args, buffer, dynamo=False,
                          input_names=names, output_names=["y"])
    return onnx.load_from_string(buffer.getvalue())


@pytest.mark.parametrize("steps", [0, 1, 4])
def test_scripted_for_loop_and_if(tmp_path: Path, steps: int) -> None:
    torch.manual_seed(16)
    x = torch.randn(2, 4)
    model = _export(_Recurrent().eval(), (x, 3), ["x", "n"])
    assert {"Loop", "If"} <= {n.op_type for n in model.graph.node}
    check_against_onnxruntime(tmp_path, model, {"x": x.numpy(), "n": np.array(steps)})


def test_scripted_while_loop(tmp_path: Path) -> None:
    torch.manual_seed(16)
    a, b = torch.randn(3, 5) * 4, torch.randn(3, 5)
    model = _export(_Accumulate(), (a, b), ["a", "b"])
    assert "Loop" in {n.op_type for n in model.graph.node}
    check_against_onnxruntime(tmp_path, model, {"a": a.numpy(), "b": b.numpy()})
