"""An op is written as the oldest opset version that has its attributes, as ovc writes it:
ONNX MaxPool as MaxPool-8 and AveragePool as AvgPool-1 unless the rounding is ceil_torch
(version 14); the IR reads back to the same op and computes as ovc's."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model


def _versions(xml: Path) -> dict[str, str]:
    return {layer.get("type"): layer.get("version") for layer in ET.parse(xml).iter("layer")
            if "Pool" in layer.get("type")}


@pytest.mark.parametrize("ceil", [0, 1])
def test_pooling_versions_are_ovc_s(ceil: int, tmp_path: Path) -> None:
    nodes = [helper.make_node("AveragePool", ["x"], ["a"], kernel_shape=[2, 2], strides=[2, 2],
                              ceil_mode=ceil),
             helper.make_node("MaxPool", ["a"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                              ceil_mode=ceil)]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [1, 3, 9, 9])],
                       [("y", TensorProto.FLOAT, None)], opset=13)
    onnx.save(model, path := tmp_path / "pool.onnx")
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "ir")).xml
    theirs = ov.convert_model(str(path))
    want = {op.get_type_name(): op.get_type_info().version_id for op in theirs.get_ops()
            if "Pool" in op.get_type_name()}
    got = _versions(xml)
    if ceil:  # ceil_torch (the last window starts inside the input) exists from version 14
        assert got == {"AvgPool": "opset14", "MaxPool": "opset14"}
    else:
        assert got == want == {"AvgPool": "opset1", "MaxPool": "opset8"}
    x = np.random.default_rng(0).standard_normal((1, 3, 9, 9)).astype(np.float32)
    ours = ov.Core().compile_model(str(xml), "CPU")([x])[0]
    np.testing.assert_allclose(ours, ov.Core().compile_model(theirs, "CPU")([x])[0], rtol=1e-6)
