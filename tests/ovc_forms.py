"""Tiny ONNX models over "x" [1, 4, 6, 6] -> "y" whose IR must hold ovc's ops: the op types of
extgen's IR and ovc's are the same multiset, outputs keep their names and agree in OpenVINO."""

from __future__ import annotations

import collections
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
from onnx import TensorProto, helper, numpy_helper

from converter.options import ConvertOptions
from converter.pipeline import convert

X = np.random.default_rng(3).standard_normal((1, 4, 6, 6)).astype(np.float32)


def onnx_model(path: Path, nodes: list[onnx.NodeProto], inits: dict[str, np.ndarray],
               y_shape: list[int], opset: int = 13) -> Path:
    graph = helper.make_graph(
        nodes, path.stem, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(X.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
        initializer=[numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)
    return path


def op_types(xml: Path) -> collections.Counter:
    return collections.Counter(layer.get("type") for layer in ET.parse(xml).iter("layer"))


def assert_ovc_form(model: Path, work: Path, fp16: bool = False) -> None:
    """extgen's IR of model holds ovc's op types and computes what ovc's does (both with
    float32 weights, or both compressing them to f16)."""
    xml = convert(ConvertOptions(model, output_dir=work / "ir", compress_to_fp16=fp16)).xml
    ovc = work / "ovc.xml"
    ov.save_model(ov.convert_model(str(model)), str(ovc), compress_to_fp16=fp16)
    assert op_types(xml) == op_types(ovc)
    core = ov.Core()
    ours, theirs = core.compile_model(str(xml), "CPU"), core.compile_model(str(ovc), "CPU")
    assert ours.output(0).get_names() == theirs.output(0).get_names() == {"y"}
    np.testing.assert_allclose(ours([X])[0], theirs([X])[0], rtol=1e-6, atol=1e-6)
