"""Pads of constant widths as MO's extractors left them, to legacy passes ordered before
FrontStart: a TF Pad, PadV2 or MirrorPad a `TFPad` (its paddings one [rank, 2] Const input, a
PadV2's value input 2), an ONNX Pad an `ONNXPad` (pads one flat Const input), an MXNet Pad an
`AttributedPad` (one input, `pads` pairs); the IR is extgen's, and a pass that changes the
shown pads stops with one line naming its file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.errors import ExtensionError
from converter.front.tf.writer import GraphBuilder
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.front.test_mxnet import Net
from tests.legacy.conftest import LAYOUTS, before_front_start, write_ext

MO = LAYOUTS["openvino.tools.mo"]

SEES = before_front_start("""
    found = {n.name: form(n) for n in graph.get_op_nodes() if n.name in WANT}
    if found != WANT:
        raise ValueError(f"the pass saw {found}")
    if CHANGE:
        node = graph.get_op_nodes(name=CHANGE)[0]
        node.in_port(1).get_source().node.value = np.zeros((4, 2), np.int32)
""", """
    import numpy as np


    def form(node):
        ports = sorted(node.in_ports())
        pads = node.in_port(1).get_source().node if 1 in ports else None
        return (node.op, node.soft_get('type'), len(ports),
                None if pads is None else np.asarray(pads.value).tolist(),
                [i for i in ports if not node.in_port(i).disconnected()],
                np.asarray(node.soft_get('pads', [])).tolist(), node.soft_get('mode'))
""")


def _ext(tmp_path: Path, want: dict, change: str = "") -> Path:
    text = SEES + f"\nWANT = {want!r}\nCHANGE = {change!r}\n"
    return write_ext(tmp_path, "ext", {"front/sees.py": text}, MO)


def _tf(tmp_path: Path) -> Path:
    g = GraphBuilder()
    x = g.placeholder("x", [1, 4, 4, 2])
    pairs = g.const("pairs", np.array([[0, 0], [1, 2], [2, 1], [0, 0]], np.int32))
    p = g.node("Pad", "pad", [x, pairs], T=np.float32, Tpaddings=np.int32)
    v = g.node("PadV2", "pad2", [p, pairs, g.const("v", np.float32(0.5))], T=np.float32,
               Tpaddings=np.int32)
    g.node("MirrorPad", "mirror", [v, pairs], T=np.float32, Tpaddings=np.int32, mode=b"REFLECT")
    return g.save(tmp_path / "m.pb")


def _types(xml: Path) -> list[str]:
    return sorted(op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ordered_ops())


def test_tf_pads_are_mo_s_tfpads_before_front_start(tmp_path: Path) -> None:
    pairs = [[0, 0], [1, 2], [2, 1], [0, 0]]
    want = {"pad": ("TFPad", None, 3, pairs, [0, 1], [], "constant"),
            "pad2": ("TFPad", None, 3, pairs, [0, 1, 2], [], "constant"),
            "mirror": ("TFPad", None, 3, pairs, [0, 1], [], "reflect")}
    model = _tf(tmp_path)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir",
                                 extensions=[_ext(tmp_path, want)])).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain")).xml
    assert _types(xml) == _types(plain)
    x = np.random.default_rng(5).standard_normal((1, 4, 4, 2)).astype(np.float32)
    ours, want = (ov.Core().compile_model(str(p), "CPU")([x])[0] for p in (xml, plain))
    np.testing.assert_array_equal(ours, want)


def test_changing_the_shown_paddings_stops_naming_the_pass(tmp_path: Path) -> None:
    pairs = [[0, 0], [1, 2], [2, 1], [0, 0]]
    want = {"pad2": ("TFPad", None, 3, pairs, [0, 1, 2], [], "constant")}
    with pytest.raises(ExtensionError, match=r"sees\.py:\d+: the pass changed input 1 of MO's "
                       r"TFPad node 'pad2'"):
        convert(ConvertOptions(_tf(tmp_path), output_dir=tmp_path / "ir",
                               extensions=[_ext(tmp_path, want, change="pad2")]))


def test_onnx_and_mxnet_pads_are_mo_s_front_ops(tmp_path: Path) -> None:
    nodes = [helper.make_node("Pad", ["x", "pads"], ["p"], name="pad", mode="edge"),
             helper.make_node("Pad", ["p", "pads", "v"], ["y"], name="pad2")]
    inits = {"pads": np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64), "v": np.float32(0.5)}
    onnx.save(make_model(nodes, [("x", TensorProto.FLOAT, [1, 2, 4, 4])],
                         [("y", TensorProto.FLOAT, None)], inits, opset=13), tmp_path / "m.onnx")
    flat = [0, 0, 1, 2, 0, 0, 2, 1]
    want = {"pad": ("ONNXPad", None, 3, flat, [0, 1], [], "edge"),
            "pad2": ("ONNXPad", None, 3, flat, [0, 1, 2], [], "constant")}
    convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir",
                           extensions=[_ext(tmp_path / "o", want)]))
    net = Net()
    y = net.op("Pad", "mpad", [net.sym.var("data")], mode="constant",
               pad_width=(0, 0, 0, 0, 1, 2, 2, 1), constant_value=0.5)
    params = net.save(tmp_path, "mx", [y])
    want = {"mpad": ("AttributedPad", None, 1, None, [0], [[0, 0], [0, 0], [1, 2], [2, 1]],
                     "constant")}
    convert(ConvertOptions(params, output_dir=tmp_path / "mir", input_shape=[[1, 2, 4, 4]],
                           extensions=[_ext(tmp_path / "m", want)]))
