"""What the PyTorch frontend refuses, each as one line (exit status 2): a TorchScript model
without input shapes, a file torch cannot load, an ATen op the converter lacks (named, with
its node), and reading a PyTorch model without torch installed. And extgen.convert_model on a
torch.nn.Module, as ovc takes one."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from extgen.cli import main

torch = pytest.importorskip("torch")


class Small(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return torch.nn.functional.hardtanh(self.conv(x), -0.5, 0.5).flatten(1)


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_torchscript_needs_input_shapes(tmp_path: Path, capsys) -> None:
    model = tmp_path / "small.pt"
    torch.jit.trace(Small().eval(), torch.rand(1, 3, 8, 8)).save(str(model))
    argv = ["convert", "--input_model", str(model), "--output_dir", str(tmp_path)]
    assert main(argv) == 2
    err = _one_line(capsys)
    assert str(model) in err and "keeps no input shapes" in err and "--input_shape" in err
    assert main([*argv, "--input_shape", "[1,3,8,8]"]) == 0
    assert (tmp_path / "small.xml").is_file()


@pytest.mark.parametrize(("name", "weights", "why"), [
    ("bad.pt2", False, "not a PyTorch archive"), ("bad.pt", False, "not a PyTorch archive"),
    ("weights.pt2", True, "not a torch.export.save archive"),
    ("weights.pth", True, "not a TorchScript file"),
])
def test_a_file_torch_cannot_load_is_one_line(tmp_path: Path, capsys, name: str,
                                              weights: bool, why: str) -> None:
    """Garbage, or a torch.save of bare weights (a zip, but no program)."""
    model = tmp_path / name
    if weights:
        torch.save(Small().state_dict(), str(model))
    else:
        model.write_bytes(b"garbage bytes")
    assert main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path),
                 "--input_shape", "[1]"]) == 2
    err = _one_line(capsys)
    assert str(model) in err and why in err and "garbage" not in err


def test_an_aten_op_the_converter_lacks_is_named_with_its_node(tmp_path: Path,
                                                                capsys) -> None:
    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.special.erfinv(x) + 1

    model = tmp_path / "net.pt2"
    torch.export.save(torch.export.export(Net(), (torch.rand(2, 3),)), str(model))
    assert main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path)]) == 2
    err = _one_line(capsys)
    assert "PyTorch op aten::erfinv is not supported yet (node erfinv)" in err


def test_without_torch_reading_one_says_to_install_it(tmp_path: Path, capsys,
                                                      monkeypatch) -> None:
    model = tmp_path / "m.pt2"
    model.write_bytes(b"")
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch fails
    assert main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path)]) == 2
    err = _one_line(capsys)
    assert str(model) in err and "needs torch; install it (pip install torch)" in err


def test_convert_model_takes_a_torch_module(capsys) -> None:
    import openvino as ov

    import extgen

    module, x = Small().eval(), torch.rand(1, 3, 8, 8)
    model = extgen.convert_model(module, example_input=x, compress_to_fp16=False)
    got = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})([x.numpy()])
    np.testing.assert_allclose(got[0], module(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(extgen.ExtgenError, match="needs example_input"):
        extgen.convert_model(module)


def test_check_lists_the_aten_ops_extgen_lacks(tmp_path: Path, capsys) -> None:
    """With torch installed, check reads a .pt2 as the converter does: an ATen op it lacks is
    named as a standard op, with a config for a workaround extension."""
    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.special.erfinv(x) * 2

    model = tmp_path / "net.pt2"
    torch.export.save(torch.export.export(Net(), (torch.rand(2, 3),)), str(model))
    assert main(["check", str(model), "--output_dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "- aten::erfinv: 1 node(s) (erfinv)" in out
    assert "PyTorch op aten::erfinv is not supported yet" in out
    assert (tmp_path / "erfinv.extgen.json").is_file()
