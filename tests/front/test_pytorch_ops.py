"""Small nets that reach the ATen translators the architecture tests leave aside, through
torch.export and TorchScript, each matching torch in the shim at f32."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converter.options import ConvertOptions, InputSpec
from converter.pipeline import convert

torch = pytest.importorskip("torch")
F = torch.nn.functional


class Shapes(torch.nn.Module):
    def forward(self, x):
        a, b = x.chunk(2, dim=1)
        y = torch.stack([a.transpose(1, 3), b.transpose(-1, 1)], dim=0).flatten(2, 3)
        z = F.pad(x.flip(2, 3), (1, 2, 0, 1), value=0.5).roll(1, 3)
        return y.sum(dim=(0, 2), keepdim=True), z.amax(-1) + z.amin(-1).cumsum(1)


class Numbers(torch.nn.Module):
    def forward(self, x):
        steps = torch.arange(0.5, 4.5, 1.0) * torch.full((4,), 2.0)
        y = torch.div(x * 7, 3, rounding_mode="floor") + torch.div(x * 7, 3,
                                                                  rounding_mode="trunc")
        y = torch.where(x > 0, y, -1.0).clamp(min=-0.5) + torch.remainder(x * 5, 2)
        return y * steps + x.rsqrt().nan_to_num(0.0).abs().reciprocal().clamp(max=3.0)


class Layers(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)
        self.norm = torch.nn.GroupNorm(3, 6)
        self.pool = torch.nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)

    def forward(self, x):
        y = self.pool(self.norm(self.up(x)))
        return F.log_softmax(y.mean(-1), dim=-1), F.silu(y).t() if y.dim() == 2 else y.mT


NETS = {"shapes": (Shapes, (2, 4, 5, 6)), "numbers": (Numbers, (3, 4)),
        "layers": (Layers, (1, 4, 5, 6))}


@pytest.mark.parametrize("form", ["export", "torchscript"])
@pytest.mark.parametrize("name", NETS)
def test_the_ops_match_torch(name: str, form: str, tmp_path: Path) -> None:
    from converter.front.pytorch.framework import FRAMEWORK
    from converter.runtime.engines import open_engine

    cls, shape = NETS[name]
    torch.manual_seed(0)
    module, x = cls().eval(), torch.randn(*shape)
    model = tmp_path / ("net.pt2" if form == "export" else "net.pt")
    if form == "export":
        torch.export.save(torch.export.export(module, (x,)), str(model))
    else:
        torch.jit.trace(module, (x,)).save(str(model))
    opts = ConvertOptions(input_model=model, output_dir=tmp_path,
                          inputs=[InputSpec(None, tuple(shape), np.dtype(np.float32))])
    names = FRAMEWORK.load(opts).graph["output_order"]
    got = open_engine("shim", convert(opts).xml, "CPU").run({"x": x.numpy()})
    with torch.no_grad():
        want = module(x)
    want = [want] if isinstance(want, torch.Tensor) else want
    for out, value in zip(names, want, strict=True):
        np.testing.assert_allclose(got[out], value.numpy(), rtol=1e-5, atol=1e-5)


class Recurrent(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(5, 6, num_layers=2, bidirectional=True)
        self.gru = torch.nn.GRU(12, 4, batch_first=True)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        z, g = self.gru(y.transpose(0, 1))
        return z, h + c.sum(0), g


NETS["recurrent"] = (Recurrent, (7, 2, 5))


class Flattened(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        return y.view(y.size(0), -1) * (y.size(0) + 1)


def test_a_dynamic_batch_stays_dynamic(tmp_path: Path) -> None:
    """A torch.export Dim: the Parameter's dim is dynamic, its sizes are read at run time, and
    another batch runs in the shim and in OpenVINO."""
    from converter.runtime.engines import open_engine

    torch.manual_seed(0)
    module, batch = Flattened().eval(), torch.export.Dim("batch", min=1, max=8)
    program = torch.export.export(module, (torch.randn(2, 3, 5, 5),), dynamic_shapes=({0: batch},))
    torch.export.save(program, str(tmp_path / "net.pt2"))
    xml = convert(ConvertOptions(input_model=tmp_path / "net.pt2", output_dir=tmp_path)).xml
    assert '<dim>-1</dim>' in xml.read_text()
    x = torch.randn(3, 3, 5, 5)
    with torch.no_grad():
        want = module(x).numpy()
    for engine in ("shim", "openvino"):
        (got,) = open_engine(engine, xml, "CPU").run({"x": x.numpy()}).values()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


class Resized(torch.nn.Module):
    def forward(self, x):
        return (F.interpolate(x, size=(7, 9), mode="bilinear"),
                F.interpolate(x, scale_factor=2, mode="nearest"),
                F.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=True))


NETS["resized"] = (Resized, (1, 2, 4, 5))
