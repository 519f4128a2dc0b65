"""A torch.library custom op through the whole loop on the model file itself: `extgen check`
names it in a .pt2 or a TorchScript file, `extgen new` scaffolds its extension from that config
(a PyTorch extractor among the targets), `extgen convert --extensions` converts the model, and
`extgen run` matches torch, in the shim and in OpenVINO."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from extgen.cli import main

torch = pytest.importorskip("torch")

if not hasattr(torch.ops.extgen_pt, "scaled_cosh"):
    @torch.library.custom_op("extgen_pt::scaled_cosh", mutates_args=(),
                             schema="(Tensor x, float scale) -> Tensor")
    def _scaled_cosh(x, scale):
        return scale * torch.cosh(x)

    @_scaled_cosh.register_fake
    def _(x, scale):
        return torch.empty_like(x)


class Net(torch.nn.Module):
    def forward(self, x):
        return torch.relu(torch.ops.extgen_pt.scaled_cosh(x - 1, 0.25)) * 2


@pytest.fixture(scope="module")
def net(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("custom")
    x = torch.linspace(-2, 2, 24).reshape(2, 3, 4)
    torch.export.save(torch.export.export(Net(), (x,)), str(folder / "net.pt2"))
    torch.jit.trace(Net(), (x,)).save(str(folder / "net.pt"))
    np.save(folder / "x.npy", x.numpy())
    return folder


@pytest.mark.parametrize("suffix", [".pt2", ".pt"])
def test_check_new_convert_run_on_a_custom_op(net: Path, capsys, suffix: str) -> None:
    """The same loop on the torch.export program and on TorchScript (its shape given)."""
    model, net = net / f"net{suffix}", net / suffix[1:]
    assert main(["check", str(model), "--output_dir", str(net)]) == 1
    assert "- extgen_pt::scaled_cosh: 1 node(s)" in capsys.readouterr().out
    config = json.loads((net / "scaled_cosh.extgen.json").read_text())
    assert "mo-pytorch-ext" in config["targets"]
    config["ops"][0]["expression"] = "scale * (exp(x) + exp(-x)) / 2"  # as a user fills it in
    (net / "filled.json").write_text(json.dumps(config))
    assert main(["new", "--config", str(net / "filled.json"), "--output_dir",
                 str(net / "ext")]) == 0
    assert main(["convert", "--input_model", str(model), "--extensions",
                 str(net / "ext" / "user_mo_extensions"), "--output_dir", str(net / "ir"),
                 "--compress_to_fp16=False", "--input_shape", "[2,3,4]"]) == 0
    xml = (net / "ir" / "net.xml").read_text()
    assert 'type="ScaledCosh"' in xml and 'scale="0.25"' in xml
    x = model.parent / "x.npy"
    want = Net()(torch.from_numpy(np.load(x))).numpy()
    for engine in ("shim", "openvino"):
        out = net / f"{engine}.npz"
        assert main(["run", str(net / "ir" / "net.xml"), "--input", f"x={x}",
                     "--extension", str(net / "ext" / "user_mo_extensions"), "--engine", engine,
                     "--output", str(out)]) == 0
        with np.load(out) as got:
            (value,) = got.values()
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


def test_without_its_extension_the_custom_op_is_named(net: Path, tmp_path: Path,
                                                      capsys) -> None:
    assert main(["convert", "--input_model", str(net / "net.pt2"), "--output_dir",
                 str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "extgen_pt::scaled_cosh" in err
    assert "--mo-pytorch-ext" in err
