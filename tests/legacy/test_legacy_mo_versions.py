"""Ops extgen writes in a newer opset, as MO's passes saw them: a Pad `opset1`, a TopK `opset3`
with three input ports, a ScatterNDUpdate `opset4` (a scatter with a reduction, which MO's
version lacked, keeps extgen's), in every phase; the IR keeps extgen's versions."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from converter.errors import ExtensionError
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.legacy.conftest import LAYOUTS, write_ext

MO = LAYOUTS["openvino.tools.mo"]
PHASES = {"front": "front.common.replacement import FrontReplacementPattern as Base",
          "middle": "middle.replacement import MiddleReplacementPattern as Base",
          "back": "back.replacement import BackReplacementPattern as Base"}

SEES = """
    from {MO}.%s


    class Sees(Base):
        enabled = True

        def find_and_replace_pattern(self, graph):
            found = {n.soft_get('name'): (n.soft_get('version'), len(n.in_ports()))
                     for n in graph.get_op_nodes() if n.soft_get('name') in WANT}
            if found != WANT:
                raise ValueError(f"the pass saw {found}")
"""

CONNECTS = """
    from {MO}.front.common.replacement import FrontReplacementPattern
    from {MO}.ops.const import Const


    class Connects(FrontReplacementPattern):
        enabled = True

        def find_and_replace_pattern(self, graph):
            top = graph.get_op_nodes(type='TopK')[0]
            Const(graph, {'value': 1}).create_node().out_port(0).connect(top.in_port(2))
"""

WANT = {"pad": ("opset1", 4), "top": ("opset3", 3), "nd": ("opset4", 3), "el": ("opset12", 4)}


def _model(tmp_path: Path) -> Path:
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    inits = {"pads": i64(0, 0, 1, 1, 0, 0, 1, 1), "k": i64(2), "idx": i64(0).reshape(1, 1),
             "upd": np.ones((1, 4, 6), np.float32), "eidx": np.zeros((1, 4, 2, 6), np.int64),
             "eupd": np.ones((1, 4, 2, 6), np.float32)}
    nodes = [helper.make_node("Pad", ["x", "pads"], ["p"], name="pad"),
             helper.make_node("TopK", ["p", "k"], ["t", "ti"], name="top", axis=2),
             helper.make_node("ScatterND", ["t", "idx", "upd"], ["s"], name="nd"),
             helper.make_node("ScatterElements", ["s", "eidx", "eupd"], ["y"], name="el",
                              axis=2, reduction="add")]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [1, 4, 4, 4])],
                       [("y", TensorProto.FLOAT, None)], inits, opset=16)
    onnx.save(model, tmp_path / "m.onnx")
    return tmp_path / "m.onnx"


def _versions(xml: Path) -> dict[str, str]:
    return {layer.get("type"): layer.get("version") for layer in ET.parse(xml).iter("layer")}


@pytest.mark.parametrize("phase", list(PHASES))
def test_passes_see_mo_s_versions_and_the_ir_keeps_extgen_s(tmp_path: Path, phase: str) -> None:
    files = {f"{phase}/sees.py": SEES % PHASES[phase] + f"\n    WANT = {WANT!r}\n"}
    ext = write_ext(tmp_path, "ext", files, MO)
    xml = convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "ir",
                                 extensions=[ext])).xml
    plain = convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "plain")).xml
    assert _versions(xml) == _versions(plain)
    assert {k: _versions(xml)[k] for k in ("Pad", "TopK", "ScatterNDUpdate")} == {
        "Pad": "opset12", "TopK": "opset11", "ScatterNDUpdate": "opset15"}


def test_connecting_mo_s_unused_topk_port_stops_naming_the_pass(tmp_path: Path) -> None:
    ext = write_ext(tmp_path, "ext", {"front/connects.py": CONNECTS}, MO)
    with pytest.raises(ExtensionError, match=r"connects\.py:\d+: the pass connected input 2 of "
                       r"TopK node 'top', which MO's op had unused"):
        convert(ConvertOptions(_model(tmp_path), output_dir=tmp_path / "ir", extensions=[ext]))
