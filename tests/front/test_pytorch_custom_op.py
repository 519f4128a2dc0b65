"""A torch.library custom op through the whole loop on the model file itself: `extgen check`
names it in a .pt2 or a TorchScript file, `extgen new` scaffolds its extension from that config
(a PyTorch extractor among the targets), `extgen convert --extensions` converts the model, and
`extgen run` matches torch, in the shim and in OpenVINO. check and convert run as the command
line does, in a fresh process where the op is not registered (torch loads the model through
a placeholder of the op)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from extgen.cli import main
from tests.child_env import child_env

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


def _extgen(*argv: str) -> subprocess.CompletedProcess:
    """The command line, in a process of its own."""
    return subprocess.run([sys.executable, "-m", "extgen", *argv], env=child_env(),
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def net(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("custom")
    x = torch.linspace(-2, 2, 24).reshape(2, 3, 4)
    torch.export.save(torch.export.export(Net(), (x,)), str(folder / "net.pt2"))
    torch.jit.trace(Net(), (x,)).save(str(folder / "net.pt"))
    np.save(folder / "x.npy", x.numpy())
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".pt2", ".pt"])
def test_check_new_convert_run_on_a_custom_op(net: Path, suffix: str) -> None:
    """The same loop on the torch.export program and on TorchScript (its shape given); the
    config's default scale is changed, so the IR's 0.25 was read from the model."""
    model, out = net / f"net{suffix}", net / suffix[1:]
    done = _extgen("check", str(model), "--output_dir", str(out))
    assert done.returncode == 1 and "- extgen_pt::scaled_cosh: 1 node(s)" in done.stdout
    config = json.loads((out / "scaled_cosh.extgen.json").read_text())
    assert "mo-pytorch-ext" in config["targets"]
    op = config["ops"][0]
    (scale,) = op["attributes"]
    assert scale["default"] == 0.25
    scale["default"] = 1.0
    op["expression"] = f"{scale['name']} * (exp(x) + exp(-x)) / 2"  # as a user fills it in
    (out / "filled.json").write_text(json.dumps(config))
    assert main(["new", "--config", str(out / "filled.json"), "--output_dir",
                 str(out / "ext")]) == 0
    done = _extgen("convert", "--input_model", str(model), "--extensions",
                   str(out / "ext" / "user_mo_extensions"), "--output_dir", str(out / "ir"),
                   "--compress_to_fp16=False", "--input_shape", "[2,3,4]")
    assert done.returncode == 0, done.stderr
    xml = (out / "ir" / "net.xml").read_text()
    assert 'type="ScaledCosh"' in xml and f'{scale["name"]}="0.25"' in xml
    x = net / "x.npy"
    want = Net()(torch.from_numpy(np.load(x))).numpy()
    for engine in ("shim", "openvino"):
        result = out / f"{engine}.npz"
        assert main(["run", str(out / "ir" / "net.xml"), "--input", f"x={x}",
                     "--extension", str(out / "ext" / "user_mo_extensions"), "--engine",
                     engine, "--output", str(result)]) == 0
        with np.load(result) as got:
            (value,) = got.values()
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


def test_without_its_extension_the_custom_op_is_named(net: Path, tmp_path: Path) -> None:
    done = _extgen("convert", "--input_model", str(net / "net.pt2"), "--output_dir",
                   str(tmp_path))
    err = done.stderr.strip()
    assert done.returncode == 2 and len(err.splitlines()) == 1, err
    assert "extgen_pt::scaled_cosh" in err and "--mo-pytorch-ext" in err
