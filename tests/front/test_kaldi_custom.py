"""A Kaldi net with a component extgen does not know: `extgen check` lists it with its tokens
and values, `extgen new --mo-kaldi-ext --mo-op` writes its extension, and the net converts with
it and runs in the shim (binary and text forms)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from converter.runtime.engines import open_engine
from extgen.cli import main
from tests.front import kaldi_nets as kn
from tests.front.kaldi_writer import F, I


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "text"])
def test_custom_component_converts_with_a_generated_extension(tmp_path, capsys, binary):
    affine = kn.affine(10, 7)
    custom = ("MyScaleComponent", ["<Dim>", I(7), "<Alpha>", F(0.25)], None)
    model = tmp_path / "custom.raw"
    model.write_bytes(kn.nnet3_chain([affine, custom], 10, binary))

    assert main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path)]) == 2
    assert "MyScaleComponent" in capsys.readouterr().err

    assert main(["check", str(model), "--output_dir", str(tmp_path)]) == 0
    listing = capsys.readouterr().out
    assert "Dim: int = 7" in listing and "Alpha: float = 0.25" in listing
    config = tmp_path / "myscalecomponent.extgen.json"
    spec = json.loads(config.read_text())
    spec["targets"] = ["mo-kaldi-ext", "mo-op"]
    spec["ops"][0]["expression"] = "x * Alpha"
    spec["ops"][0]["attributes"][1]["default"] = 1.0  # the model's value must win
    config.write_text(json.dumps(spec))
    out = tmp_path / "gen"
    assert main(["new", "--config", str(config), "--output_dir", str(out)]) == 0
    assert (out / "user_mo_extensions/front/kaldi/my_scale_component_ext.py").is_file()

    ext = out / "user_mo_extensions"
    assert main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path / "ir"),
                 "--extensions", str(ext)]) == 0
    x = kn.RNG.standard_normal((1, 10)).astype(np.float32)
    got = open_engine("shim", tmp_path / "ir/custom.xml", "CPU", extensions=[ext]).run(
        {"input": x})
    np.testing.assert_allclose(next(iter(got.values())), affine[2](x) * 0.25, rtol=1e-5)
