"""Caffe custom layers: a layer with a new parameter message (the user's caffe.proto through
--caffe_parser_path) and a Python layer, each handled by an extractor that `extgen new`
generates; CustomLayersMapping.xml (-k) takes priority over both."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from extgen.cli import main
from tests.front.test_caffe import convert_model, run_both, user_proto, write_model

COSH_PARAM = ("message CoshParameter {\n  optional float scale = 1 [default = 1];\n"
              "  optional int32 mode = 2;\n}")
COSH_FIELD = "  optional CoshParameter cosh_param = 5000;"
NET = """
name: "custom"
input: "data"
input_shape { dim: 2 dim: 3 }
layer { name: "pre" type: "Power" bottom: "data" top: "pre" power_param { scale: 2 } }
LAYER
layer { name: "post" type: "TanH" bottom: "cosh" top: "out" }
"""
NATIVE = ('layer { name: "cosh" type: "Cosh" bottom: "pre" top: "cosh" '
          "cosh_param { scale: 3 mode: 7 } }")
PYTHON = ('layer { name: "cosh" type: "Python" bottom: "pre" top: "cosh"\n'
          '  python_param { module: "mylayers" layer: "CoshLayer" '
          "param_str: \"'scale': 3\" } }")


def _generate(tmp_path: Path, caffe: dict) -> Path:
    config = {
        "targets": ["mo-caffe-ext", "mo-op"],
        "ops": [{"name": "Cosh", "framework_types": {"caffe": "Cosh"}, "caffe": caffe,
                 "attributes": [{"name": "scale", "type": "float", "default": 1.0}],
                 "expression": "scale * (exp(x) + exp(-x)) / 2"}],
    }
    cfg = tmp_path / "cosh.json"
    cfg.write_text(json.dumps(config))
    assert main(["new", "--config", str(cfg), "--output_dir", str(tmp_path / "gen")]) == 0
    return tmp_path / "gen" / "user_mo_extensions"


def _expected(x: np.ndarray) -> np.ndarray:
    return np.tanh(3 * np.cosh(2 * x))


@pytest.mark.parametrize("copy_all", [True, False])
def test_generated_extractor_for_a_new_parameter_message(tmp_path: Path, copy_all: bool) -> None:
    ext = _generate(tmp_path, {"copy_all": copy_all})
    proto = user_proto(tmp_path / "proto", COSH_PARAM, COSH_FIELD)
    model = write_model(tmp_path, "net", NET.replace("LAYER", NATIVE), {}, proto=proto)
    xml = convert_model(model, tmp_path / "ir", extensions=[ext], caffe_parser_path=proto.parent)
    text = xml.read_text()
    assert 'type="Cosh"' in text and 'scale="3' in text
    assert ('mode="7"' in text) == copy_all  # copy_all: every proto parameter reaches the IR
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    for out in run_both(xml, {"data": x}, ext=[ext]):
        np.testing.assert_allclose(out["out"], _expected(x), rtol=1e-5)


def test_generated_extractor_for_a_python_layer(tmp_path: Path) -> None:
    ext = _generate(tmp_path, {"pythonic": True, "module": "mylayers.CoshLayer", "copy_all": False})
    text = next((ext / "front" / "caffe").glob("*_ext.py")).read_text()
    assert "CaffePythonFrontExtractorOp" in text and '"mylayers.CoshLayer"' in text
    model = write_model(tmp_path, "net", NET.replace("LAYER", PYTHON), {})
    xml = convert_model(model, tmp_path / "ir", extensions=[ext])
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    for out in run_both(xml, {"data": x}, ext=[ext]):
        np.testing.assert_allclose(out["out"], _expected(x), rtol=1e-5)


def test_python_layer_without_extractor_is_listed(tmp_path: Path, capsys) -> None:
    model = write_model(tmp_path, "net", NET.replace("LAYER", PYTHON), {})
    code = main(["convert", "--input_model", str(model), "-o", str(tmp_path / "ir")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "mylayers.CoshLayer (node cosh)" in err and "extgen new" in err


def test_custom_layers_mapping_wins_over_the_extension(tmp_path: Path) -> None:
    """-k: the layer keeps every cosh_param field as an IR attribute, even with an extractor."""
    ext = _generate(tmp_path, {"copy_all": False})
    proto = user_proto(tmp_path / "proto", COSH_PARAM, COSH_FIELD)
    model = write_model(tmp_path, "net", NET.replace("LAYER", NATIVE), {}, proto=proto)
    mapping = tmp_path / "CustomLayersMapping.xml"
    mapping.write_text('<CustomKernelsMapping>\n  <CustomLayer NativeType="Cosh" hasParam="true" '
                       'protoParamName="cosh_param"/>\n</CustomKernelsMapping>\n')
    xml = convert_model(model, tmp_path / "ir", extensions=[ext], caffe_parser_path=proto,
                        custom_layers_mapping=mapping)
    text = xml.read_text()
    assert 'mode="7"' in text and 'scale="3' in text  # the generated explicit extractor omits mode
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    for out in run_both(xml, {"data": x}, ext=[ext]):
        np.testing.assert_allclose(out["out"], _expected(x), rtol=1e-5)


def test_collect_attributes_and_param_str() -> None:
    from converter.front.caffe.attrs import collect_attributes, merge_attrs
    from converter.front.caffe.extractor import CaffePythonFrontExtractorOp
    from converter.front.caffe.proto import net_class

    layer = net_class()().layer.add()
    layer.pooling_param.kernel_size = 3
    attrs = collect_attributes(layer.pooling_param)
    assert attrs["kernel_size"] == 3 and attrs["pool"] == "MAX" and "kernel_h" not in attrs
    assert "kernel_h" in collect_attributes(layer.pooling_param, disable_omitting_optional=True)
    layer.detection_output_param.nms_param.nms_threshold = 0.45
    flat = collect_attributes(layer.detection_output_param, enable_flattening_nested_params=True)
    assert flat["nms_param__nms_threshold"] == pytest.approx(0.45)
    assert collect_attributes(layer.detection_output_param)["nms_threshold"] == pytest.approx(0.45)
    assert merge_attrs(layer.pooling_param, {"stride": 2, "bogus": 1}) == {"stride": 2}
    parse = CaffePythonFrontExtractorOp.parse_param_str
    assert parse("'num': 3, 'ratios': [0.5, 1]") == {"num": 3, "ratios": [0.5, 1]}
    assert parse('{"feat_stride": 16}') == {"feat_stride": 16} and parse("") == {}
