"""MO's op classes for ops extgen once lacked (the ExperimentalDetectron family, RandomUniform,
DeformablePSROIPooling, AdaptiveAvgPooling): MO's own extractors and passes, copied unmodified
from its wheel, convert a model holding them; OpenVINO reads the IR and agrees on every shape,
and runs it where the result can be checked."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.executor import KernelNotFoundError
from tests.conftest import make_model
from tests.legacy.mo_corpus import PREFIX, corpus

F = TensorProto.FLOAT
RNG = np.random.default_rng(5)


def _convert(tmp_path: Path, files: tuple[str, ...], nodes: list, inputs: list,
             outputs: list, domain: str = "") -> Path:
    for rel in files:
        dst = tmp_path / "ext" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus() / PREFIX / rel, dst)
    model = make_model(nodes, inputs, [(o, F, None) for o in outputs],
                       domains=(domain,) if domain else ())
    onnx.save(model, tmp_path / "m.onnx")
    return convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir",
                                  extensions=[tmp_path / "ext"])).xml


def _layer(xml: Path, type_: str) -> ET.Element:
    (layer,) = [e for e in ET.parse(xml).iter("layer") if e.get("type") == type_]
    return layer


def _declared(layer: ET.Element) -> list[list[int]]:
    return [[int(d.text) for d in port.iter("dim")] for port in layer.find("output")]


def test_prior_grid_and_top_k_rois_through_mo_s_onnx_extractors(tmp_path) -> None:
    priors = RNG.uniform(-8, 8, (3, 4)).astype(np.float32)
    fmap, image = np.zeros((1, 2, 4, 5), np.float32), np.zeros((1, 3, 32, 40), np.float32)
    probs = RNG.permutation(60).astype(np.float32)
    nodes = [helper.make_node("ExperimentalDetectronPriorGridGenerator", ["p", "f", "i"], ["g"],
                              domain="org.openvinotoolkit", flatten=1),
             helper.make_node("ExperimentalDetectronTopKROIs", ["g", "s"], ["y"],
                              domain="org.openvinotoolkit", max_rois=7)]
    xml = _convert(tmp_path, ("front/onnx/priorgridgenerator_ext.py", "front/onnx/topkrois_ext.py"),
                   nodes, [("p", F, [3, 4]), ("f", F, [1, 2, 4, 5]), ("i", F, [1, 3, 32, 40]),
                           ("s", F, [60])], ["y"], "org.openvinotoolkit")
    grid = _layer(xml, "ExperimentalDetectronPriorGridGenerator")
    assert grid.get("version") == "opset6" and _declared(grid) == [[60, 4]]
    assert _declared(_layer(xml, "ExperimentalDetectronTopKROIs")) == [[7, 4]]
    got = ov.Core().compile_model(str(xml), "CPU")([priors, fmap, image, probs])[0]
    cells = [(x + 0.5) * 8 for x in range(5)], [(y + 0.5) * 8 for y in range(4)]
    want = np.array([p + [cx, cy, cx, cy] for cy in cells[1] for cx in cells[0] for p in priors])
    np.testing.assert_allclose(got, want[np.argsort(-probs)[:7]], rtol=1e-6)
    ours = _shim_run(xml, [priors, fmap, image, probs])
    np.testing.assert_allclose(ours, got, rtol=1e-6)


def _shim_run(xml: Path, inputs: list[np.ndarray]) -> np.ndarray:
    from converter.runtime.engines import open_engine

    engine = open_engine("shim", xml)
    outs = engine.run({spec.name: x for spec, x in zip(engine.inputs(), inputs)})
    return next(iter(outs.values()))


def test_prior_grid_unflattened_with_strides_matches_openvino(tmp_path) -> None:
    priors = RNG.uniform(-8, 8, (2, 4)).astype(np.float32)
    fmap, image = np.zeros((1, 2, 3, 4), np.float32), np.zeros((1, 3, 30, 40), np.float32)
    nodes = [helper.make_node("ExperimentalDetectronPriorGridGenerator", ["p", "f", "i"], ["y"],
                              domain="org.openvinotoolkit", flatten=0, stride_x=6.0)]
    xml = _convert(tmp_path, ("front/onnx/priorgridgenerator_ext.py",), nodes,
                   [("p", F, [2, 4]), ("f", F, [1, 2, 3, 4]), ("i", F, [1, 3, 30, 40])], ["y"],
                   "org.openvinotoolkit")
    assert _declared(_layer(xml, "ExperimentalDetectronPriorGridGenerator")) == [[3, 4, 2, 4]]
    got = ov.Core().compile_model(str(xml), "CPU")([priors, fmap, image])[0]
    np.testing.assert_allclose(_shim_run(xml, [priors, fmap, image]), got, rtol=1e-6)


def _agrees_with_openvino(xml: Path, types: set[str]) -> None:
    """Every output of those layers: the IR declares what OpenVINO's own inference gives."""
    ops = {op.get_friendly_name(): op for op in ov.Core().read_model(str(xml)).get_ops()}
    seen = set()
    for layer in ET.parse(xml).iter("layer"):
        if layer.get("type") in types:
            theirs = [[d.get_length() for d in ops[layer.get("name")].get_output_partial_shape(i)]
                      for i in range(ops[layer.get("name")].get_output_size())]
            assert _declared(layer) == theirs, layer.get("type")
            seen.add(layer.get("type"))
    assert seen == types


def test_mask_rcnn_head_ops_through_mo_s_onnx_extractors(tmp_path) -> None:
    domain = "org.openvinotoolkit"
    nodes = [
        helper.make_node("ExperimentalDetectronGenerateProposalsSingleImage",
                         ["info", "anchors", "deltas", "scores"], ["rois", "rs"], domain=domain,
                         post_nms_count=6, pre_nms_count=20),
        helper.make_node("ExperimentalDetectronROIFeatureExtractor", ["rois", "f0", "f1"],
                         ["feats", "rois2"], domain=domain, output_size=3, sampling_ratio=2,
                         pyramid_scales=[4, 8]),
        helper.make_node("ExperimentalDetectronDetectionOutput",
                         ["rois2", "bd", "bs", "info2"], ["boxes", "classes", "ds"],
                         domain=domain, num_classes=3, max_detections_per_image=5,
                         post_nms_count=10),
    ]
    inputs = [("info", F, [3]), ("anchors", F, [2 * 4 * 4, 4]), ("deltas", F, [8, 4, 4]),
              ("scores", F, [2, 4, 4]), ("f0", F, [1, 4, 8, 8]), ("f1", F, [1, 4, 4, 4]),
              ("bd", F, [6, 12]), ("bs", F, [6, 3]), ("info2", F, [1, 3])]
    files = ("front/onnx/proposal_ext.py", "front/onnx/roifeatureextractor_ext.py",
             "front/onnx/detection_output_onnx_ext.py")
    xml = _convert(tmp_path, files, nodes, inputs, ["feats", "boxes", "classes", "ds", "rs"],
                   domain)
    _agrees_with_openvino(xml, {"ExperimentalDetectronGenerateProposalsSingleImage",
                                "ExperimentalDetectronROIFeatureExtractor",
                                "ExperimentalDetectronDetectionOutput"})
    assert _declared(_layer(xml, "ExperimentalDetectronROIFeatureExtractor"))[0] == [6, 4, 3, 3]
    classes = _layer(xml, "ExperimentalDetectronDetectionOutput").find("output")[1]
    assert classes.get("precision") == "I32"


def _convert_mxnet(tmp_path: Path, files: tuple[str, ...], build, shape: tuple,
                   args: dict | None = None) -> Path:
    from converter.front.mxnet.params import write_ndarray_file
    from converter.front.mxnet.symbol import SymbolBuilder

    for rel in files:
        dst = tmp_path / "ext" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus() / PREFIX / rel, dst)
    sym = SymbolBuilder()
    sym.save(tmp_path / "m-symbol.json", [build(sym)])
    write_ndarray_file(tmp_path / "m-0000.params",
                       {f"arg:{k}": v for k, v in (args or {}).items()})
    options = ConvertOptions(tmp_path / "m-0000.params", output_dir=tmp_path / "ir",
                             extensions=[tmp_path / "ext"], input_shape=[shape])
    return convert(options).xml


@pytest.mark.parametrize(("size", "kernel", "stride"), [(4, 2, 2), (3, 4, 2)])
def test_adaptive_avg_pooling_becomes_mo_s_average_pooling(tmp_path, size, kernel,
                                                           stride) -> None:
    """MO's window: stride input // output, the rest of the input for the last cell (the
    real adaptive pooling where the input is a multiple of the output)."""
    xml = _convert_mxnet(
        tmp_path, ("front/mxnet/adaptive_avg_pooling_ext.py",),
        lambda s: s.op("_contrib_AdaptiveAvgPooling2D", "pool", [s.var("data")],
                       output_size=(size,)), (1, 3, 8, 8))
    layer = _layer(xml, "AvgPool")
    assert layer.find("data").get("kernel") == f"{kernel},{kernel}"
    assert layer.find("data").get("strides") == f"{stride},{stride}"
    x = RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)
    got = ov.Core().compile_model(str(xml), "CPU")([x])[0]
    want = np.array([[[x[0, c, i * stride:i * stride + kernel, j * stride:j * stride + kernel]
                       .mean() for j in range(size)] for i in range(size)] for c in range(3)])
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-6)


def test_deformable_psroi_pooling_through_mo_s_mxnet_extractor(tmp_path) -> None:
    rois = np.array([[0, 1, 1, 6, 6], [0, 0, 2, 7, 5]], np.float32)
    trans = RNG.uniform(-0.1, 0.1, (2, 2, 3, 3)).astype(np.float32)
    xml = _convert_mxnet(
        tmp_path, ("front/mxnet/deformable_psroi_pooling_ext.py",),
        lambda s: s.op("_contrib_DeformablePSROIPooling", "pool",
                       [s.var("data"), s.var("rois"), s.var("trans")], spatial_scale=1.0,
                       group_size=3, output_dim=2, pooled_size=3, part_size=3,
                       sample_per_part=2, trans_std=0.1), (1, 18, 8, 8),
        {"rois": rois, "trans": trans})
    layer = _layer(xml, "DeformablePSROIPooling")
    assert layer.get("version") == "opset1" and _declared(layer) == [[2, 2, 3, 3]]
    assert layer.find("data").get("mode") == "bilinear_deformable"
    _agrees_with_openvino(xml, {"DeformablePSROIPooling"})
    x = RNG.standard_normal((1, 18, 8, 8)).astype(np.float32)
    assert ov.Core().compile_model(str(xml), "CPU")([x])[0].shape == (2, 2, 3, 3)


def test_random_uniform_through_mo_s_extractor_and_pass(tmp_path, caplog) -> None:
    """MO's ONNX RandomUniform extractor makes an AttributedRandomUniform (so it is not taken
    for an extractor binding to the built-in op by accident), and MO's pass turns it into
    RandomUniform-8 with its shape, min and max as inputs; never folded."""
    nodes = [helper.make_node("RandomUniform", [], ["r"], shape=[2, 5], low=2.0, high=3.0),
             helper.make_node("Add", ["x", "r"], ["y"])]
    xml = _convert(tmp_path, ("front/onnx/random_uniform_ext.py",
                              "front/AttributedRandomUniformToRandomUniform.py"),
                   nodes, [("x", F, [2, 5])], ["y"])
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
    layer = _layer(xml, "RandomUniform")
    assert layer.get("version") == "opset8" and _declared(layer) == [[2, 5]]
    assert layer.find("data").get("output_type") == "f32"
    _agrees_with_openvino(xml, {"RandomUniform"})
    got = ov.Core().compile_model(str(xml), "CPU")([np.zeros((2, 5), np.float32)])[0]
    assert ((got >= 2) & (got < 3)).all() and len(np.unique(got)) > 1
    with pytest.raises(KernelNotFoundError, match="'r' of type RandomUniform .* has no kernel"):
        _shim_run(xml, [np.zeros((2, 5), np.float32)])  # no generator of OpenVINO's here
