"""MO's Caffe flags through `extgen convert`: --mean_file (a mean image cropped at its centre),
--disable_omitting_optional and --enable_flattening_nested_params for -k/--k layers."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from converter.front.caffe.proto import net_class
from extgen.cli import main
from tests.front.test_caffe import run_both, user_proto, write_model
from tests.front.test_caffe_custom import COSH_FIELD, COSH_PARAM, _generate

NET = """
name: "m"
input: "data"
input_shape { dim: 1 dim: 3 dim: 2 dim: 2 }
layer { name: "relu" type: "ReLU" bottom: "data" top: "out" }
"""


def _mean_file(path: Path, image: np.ndarray) -> Path:
    blob = net_class()().layer.add().blobs.add()
    blob.num, (blob.channels, blob.height, blob.width) = 1, image.shape
    blob.data.extend(image.ravel().tolist())
    path.write_bytes(blob.SerializeToString())
    return path


def test_mean_file_is_cropped_at_the_centre_and_subtracted(tmp_path: Path, capsys) -> None:
    image = np.arange(48, dtype=np.float32).reshape(3, 4, 4) / 10
    mean = _mean_file(tmp_path / "mean.binaryproto", image)
    model = write_model(tmp_path, "m", NET, {})
    assert main(["convert", str(model), "-o", str(tmp_path / "ir"), "--mean_file", str(mean),
                 "--compress_to_fp16=False"]) == 0
    x = np.random.default_rng(0).standard_normal((1, 3, 2, 2)).astype(np.float32) + 2
    for out in run_both(tmp_path / "ir" / "m.xml", {"data": x}):
        np.testing.assert_allclose(out["out"], np.maximum(x - image[None, :, 1:3, 1:3], 0),
                                   rtol=1e-6)
    code = main(["convert", str(model), "--mean_file", str(mean), "--mean_values", "[1,2,3]"])
    assert code == 2 and "both --mean_file and --mean_values" in capsys.readouterr().err
    (tmp_path / "bad.binaryproto").write_bytes(b"\xff\xff not a blob")
    assert main(["convert", str(model), "--mean_file", str(tmp_path / "bad.binaryproto")]) == 2
    assert "not a Caffe mean .binaryproto" in capsys.readouterr().err


def test_k_layers_keep_optional_and_flattened_parameters(tmp_path: Path) -> None:
    ext = _generate(tmp_path, {"copy_all": False})
    proto = user_proto(tmp_path / "proto", COSH_PARAM, COSH_FIELD)
    layer = 'layer { name: "cosh" type: "Cosh" bottom: "data" top: "out" cosh_param { scale: 3 } }'
    model = write_model(tmp_path, "m", NET.replace(
        'layer { name: "relu" type: "ReLU" bottom: "data" top: "out" }', layer), {}, proto=proto)
    mapping = tmp_path / "mapping.xml"
    mapping.write_text('<CustomKernelsMapping><CustomLayer NativeType="Cosh" hasParam="true" '
                       'protoParamName="cosh_param"/></CustomKernelsMapping>')
    texts = {}
    for extra in ([], ["--disable_omitting_optional"]):
        out = tmp_path / f"ir{len(extra)}"
        assert main(["convert", str(model), "-o", str(out), "--extensions", str(ext),
                     "--caffe_parser_path", str(proto), "--k", str(mapping), *extra]) == 0
        texts[len(extra)] = (out / "m.xml").read_text()
    assert 'scale="3' in texts[0] and 'mode=' not in texts[0]
    assert 'mode="0"' in texts[1]
