"""Kaldi's dim-range nodes as MO's front and middle passes saw them (converter.legacy.kaldi_crops):
Crop ops with offset, dim and axis and two input ports; the IR has the StridedSlice, where a
pass may have moved the window."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import openvino as ov

from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.front import kaldi_nets as kn
from tests.front import kaldi_writer as kw
from tests.legacy.conftest import LAYOUTS, write_ext

SEES_CROPS = """
    from {MO}.back.replacement import BackReplacementPattern
    from {MO}.front.common.replacement import FrontReplacementPattern
    from {MO}.middle.replacement import MiddleReplacementPattern


    def crops(graph):
        return [(n.name, n.type, int(n.offset[0]), int(n.dim[0]), list(n.axis), len(n.in_ports()))
                for n in graph.get_op_nodes(op='Crop')]


    class FrontCrops(FrontReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            if crops(graph) != [('a', None, 1, 2, [1], 2)] or graph.get_op_nodes(op='StridedSlice'):
                raise ValueError(f"front: not MO's Crop: {crops(graph)}")


    class MiddleCrops(MiddleReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            if crops(graph) != [('a', None, 1, 2, [1], 2)]:
                raise ValueError(f"middle: not MO's Crop: {crops(graph)}")
            if {MOVE}:
                graph.get_op_nodes(op='Crop')[0].offset[0] = 2


    class BackSlices(BackReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            if graph.get_op_nodes(op='Crop') or len(graph.get_op_nodes(op='StridedSlice')) != 1:
                raise ValueError("back: MO's Crop is still shown")
"""


def _net(path: Path) -> tuple[Path, np.ndarray]:
    """input (4 features) -> features 1:3 (a dim-range node) -> a fixed scale; the scales."""
    ctype, items, _ = kn.fixed_scale(2)
    config = ["input-node name=input dim=4",
              "dim-range-node name=a input-node=input dim-offset=1 dim=2",
              "component-node name=s component=s input=a",
              "output-node name=output input=s objective=linear"]
    path.write_bytes(kw.nnet3(config, [("s", ctype, items)], True))
    return path, np.asarray(items[1])


def _graph(xml: Path) -> tuple[list, list]:
    """An IR's layers (name, type, data) and its edges by layer name and port (set aside and
    put back, the Consts come later in the file: the graph is the same)."""
    root = ET.parse(xml).getroot()
    names = {layer.get("id"): layer.get("name") for layer in root.iter("layer")}
    layers = sorted((layer.get("name"), layer.get("type"),
                     tuple(sorted(getattr(layer.find("data"), "attrib", {}).items())))
                    for layer in root.iter("layer"))
    edges = sorted((names[e.get("from-layer")], names[e.get("to-layer")], e.get("to-port"))
                   for e in root.iter("edge"))
    return layers, edges


def _output(xml: Path, x: np.ndarray) -> np.ndarray:
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled([x])[compiled.output(0)]


def test_passes_see_mo_s_crop_and_the_ir_its_strided_slice(tmp_path: Path) -> None:
    model, scales = _net(tmp_path / "net.raw")
    ext = write_ext(tmp_path, "ext", {"middle/crops.py": SEES_CROPS.replace("{MOVE}", "False")},
                    LAYOUTS["openvino.tools.mo"])
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    assert [t for _, t, _ in _graph(xml)[0]].count("StridedSlice") == 1
    assert _graph(xml)[1] == _graph(plain)[1]
    assert [(n, t) for n, t, _ in _graph(xml)[0]] == [(n, t) for n, t, _ in _graph(plain)[0]]
    x = np.random.default_rng(0).standard_normal((1, 4)).astype(np.float32)
    np.testing.assert_allclose(_output(xml, x), x[:, 1:3] * scales, rtol=1e-5)


def test_a_crop_a_pass_moved_moves_the_strided_slice(tmp_path: Path) -> None:
    """A middle pass sets the Crop's offset to 2: the IR slices features 2:4."""
    model, scales = _net(tmp_path / "net.raw")
    ext = write_ext(tmp_path, "ext", {"middle/crops.py": SEES_CROPS.replace("{MOVE}", "True")},
                    LAYOUTS["openvino.tools.mo"])
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext])).xml
    x = np.random.default_rng(0).standard_normal((1, 4)).astype(np.float32)
    np.testing.assert_allclose(_output(xml, x), x[:, 2:4] * scales, rtol=1e-5)
