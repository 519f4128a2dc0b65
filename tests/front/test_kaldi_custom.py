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

    assert main(["check", str(model), "--output_dir", str(tmp_path)]) == 1  # needs extensions
    listing = capsys.readouterr().out
    assert "Dim: int = 7" in listing and "Alpha: float = 0.25" in listing
    config = tmp_path / "my_scale_component.extgen.json"
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
                 "--extensions", str(ext), "--compress_to_fp16=False"]) == 0
    x = kn.RNG.standard_normal((1, 10)).astype(np.float32)
    got = open_engine("shim", tmp_path / "ir/custom.xml", "CPU", extensions=[ext]).run(
        {"input": x})
    np.testing.assert_allclose(next(iter(got.values())), affine[2](x) * 0.25, rtol=1e-5)


LEGACY_EXTRACTOR = '''
from mo.front.extractor import FrontExtractorOp
from mo.front.kaldi.loader.utils import collect_until_token, read_binary_float_token
from mo.ops.op import Op


class MyScaleExtractor(FrontExtractorOp):
    op = "myscalecomponent"  # MO keyed Kaldi extractors by the lower-case token
    enabled = True

    @classmethod
    def extract(cls, node):
        pb = node.parameters
        collect_until_token(pb, b"<Alpha>")
        alpha = float(read_binary_float_token(pb))
        Op.get_op_class_by_name("MyScaleComponent").update_node_stat(node, {"Alpha": alpha})
        return cls.enabled
'''


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "text"])
def test_mo_style_extractor_reads_node_parameters(tmp_path, binary):
    """An extractor written for MO (node.parameters and MO's readers under mo.front.kaldi.*)
    converts the net; a text-form model's component reaches it encoded in binary."""
    affine = kn.affine(10, 7)
    custom = ("MyScaleComponent", ["<Dim>", I(7), "<Alpha>", F(-1.5)], None)
    model = tmp_path / "custom.raw"
    model.write_bytes(kn.nnet3_chain([affine, custom], 10, binary))
    config = tmp_path / "op.json"
    config.write_text(json.dumps({"targets": ["mo-op"], "ops": [{
        "name": "MyScaleComponent", "expression": "x * Alpha",
        "attributes": [{"name": "Alpha", "type": "float", "default": 1.0}]}]}))
    ext = tmp_path / "gen" / "user_mo_extensions"
    assert main(["new", "--config", str(config), "--output_dir", str(tmp_path / "gen")]) == 0
    (ext / "front" / "kaldi").mkdir(parents=True)
    (ext / "front" / "kaldi" / "my_scale_ext.py").write_text(LEGACY_EXTRACTOR)
    assert main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path / "ir"),
                 "--extensions", str(ext), "--compress_to_fp16=False"]) == 0
    x = kn.RNG.standard_normal((1, 10)).astype(np.float32)
    got = open_engine("shim", tmp_path / "ir/custom.xml", "CPU", extensions=[ext]).run(
        {"input": x})
    np.testing.assert_allclose(next(iter(got.values())), affine[2](x) * -1.5, rtol=1e-5,
                               atol=1e-6)  # float32 against float64 near zero


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "text"])
def test_mo_readers_on_component_parameters(binary):
    from converter.front.kaldi.mo_readers import (
        collect_until_token,
        parameters,
        read_binary_integer32_token,
        read_binary_matrix,
        read_binary_vector,
        read_learning_info,
    )
    from converter.front.kaldi.model import read_model

    comps = [kn.affine(4, 3), kn.tdnn0(3, 2)]
    model = read_model(kn.nnet3_chain(comps, 4, binary), "m.raw")
    pb = parameters(model.components[0])
    read_learning_info(pb)
    collect_until_token(pb, b"<LinearParams>")
    weights, shape = read_binary_matrix(pb)
    np.testing.assert_array_equal(weights.reshape(shape), comps[0][1][3])
    collect_until_token(pb, b"<BiasParams>")
    np.testing.assert_array_equal(read_binary_vector(pb), comps[0][1][5])
    pb = parameters(model.components[1])
    collect_until_token(pb, b"<TimeOffsets>")
    assert list(read_binary_vector(pb, False, np.int32)) == [0]
    collect_until_token(pb, b"<RankInOut>")
    assert read_binary_integer32_token(pb) == 20
