"""Ops MO's extractors made, as legacy passes ordered before FrontStart see them (MO's front passes
lowered most right after it): an ONNX Max of two an `EltwiseN`, a Sqrt an `AttributedPower`, an
Unsqueeze an `ExpandDims`, a Gather an `AttributedGather`, a MeanVarianceNormalization an
`MVNOnnx`, a ThresholdedRelu one node, a ConstantOfShape one node of one input, a Slice MO's
untyped Slice (axes input 3, steps 4); a Caffe Slice a `CaffeSlice`, a Flatten a `Flatten`, an
MVN an `MVNCaffe`, a Tile an `AttributedTile`, a Power an `AttributedPower`, a global pooling a
`Pooling`; MXNet's flatten and take; a TF Pack a `Pack` of its inputs (extgen's Unsqueezes set
aside). Each with MO's inputs and attributes; the IR is extgen's (the same ops and outputs as
without the pass)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
from onnx import TensorProto, helper

from converter.front.tf.writer import GraphBuilder
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.front.test_caffe import write_model as write_caffe
from tests.front.test_mxnet import Net
from tests.legacy.conftest import LAYOUTS, before_front_start, write_ext

MO = LAYOUTS["openvino.tools.mo"]

SEES = before_front_start("""
    found = {n.name: (n.op, n.soft_get('type'), len(n.in_ports()),
                      np.asarray(n.soft_get(KEY[n.op])).tolist())
             for n in graph.get_op_nodes() if n.name in WANT}
    if found != WANT:
        raise ValueError(f"the pass saw {found}")
    check(graph)
""", "import numpy as np\n") + """

def check(graph):
    pass
"""
KEY = {"EltwiseN": "operation", "AttributedPower": "power", "ExpandDims": "expand_axis",
       "AttributedGather": "axis", "MVNOnnx": "eps_mode", "ThresholdedRelu": "alpha",
       "CaffeSlice": "axis", "Flatten": "end_axis", "MVNCaffe": "across_channels",
       "AttributedTile": "tiles", "ConstantOfShape": "fill_value", "Pooling": "pool_method",
       "Pack": "axis", "Slice": "op"}


def _check(tmp_path: Path, model: Path, want: dict, check: str = "", **options) -> None:
    text = SEES + f"\nWANT = {want!r}\nKEY = {KEY!r}\n" + textwrap.dedent(check)
    ext = write_ext(tmp_path, "ext", {"front/sees.py": text}, MO)
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir", extensions=[ext],
                                 **options)).xml
    plain = convert(ConvertOptions(model, output_dir=tmp_path / "plain", **options)).xml
    core = ov.Core()
    models = [core.read_model(str(p)) for p in (xml, plain)]
    assert [sorted(o.get_type_name() for o in m.get_ordered_ops()) for m in models] == [
        sorted(o.get_type_name() for o in models[1].get_ordered_ops())] * 2
    feed = [np.random.default_rng(3).standard_normal(list(p.get_shape())).astype(np.float32)
            for p in models[0].inputs]
    ours, theirs = (core.compile_model(m, "CPU")(feed)[0] for m in models)
    np.testing.assert_array_equal(ours, theirs)


def test_onnx_ops_as_mo_extracted_them(tmp_path: Path) -> None:
    nodes = [helper.make_node("Max", ["x", "x"], ["m"], name="max"),
             helper.make_node("Sqrt", ["m"], ["s"], name="sqrt"),
             helper.make_node("Unsqueeze", ["s", "ax"], ["u"], name="unsq"),
             helper.make_node("Gather", ["u", "idx"], ["g"], name="gather", axis=2),
             helper.make_node("MeanVarianceNormalization", ["g"], ["n"], name="mvn",
                              axes=[0, 2, 3, 4]),
             helper.make_node("ThresholdedRelu", ["n"], ["t"], name="thr", alpha=0.5),
             helper.make_node("Shape", ["t"], ["sh"], name="shape"),
             helper.make_node("ConstantOfShape", ["sh"], ["c"], name="cos",
                              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [2.0])),
             helper.make_node("Mul", ["t", "c"], ["m2"], name="mul"),
             helper.make_node("Slice", ["m2", "st", "en", "sax"], ["y"], name="slice")]
    inits = {"ax": np.array([0], np.int64), "idx": np.array([1, 0], np.int64),
             "st": np.array([1], np.int64), "en": np.array([3], np.int64),
             "sax": np.array([3], np.int64)}
    onnx.save(make_model(nodes, [("x", TensorProto.FLOAT, [2, 3, 4, 4])],
                         [("y", TensorProto.FLOAT, None)], inits, opset=13), tmp_path / "m.onnx")
    want = {"max": ("EltwiseN", None, 2, "max"), "sqrt": ("AttributedPower", "Power", 1, 0.5),
            "unsq": ("ExpandDims", None, 2, []), "gather": ("AttributedGather", "Gather", 2, 2),
            "mvn": ("MVNOnnx", None, 1, "outside_sqrt"), "thr": ("ThresholdedRelu", None, 1, 0.5),
            "cos": ("ConstantOfShape", None, 1, [2.0]), "slice": ("Slice", None, 5, "Slice")}
    check = """
    def check(graph):
        node = graph.get_op_nodes(name='slice')[0]
        axes = node.in_port(3).get_source().node
        if axes.soft_get('value').tolist() != [3] or not node.in_port(4).disconnected():
            raise ValueError("not MO's Slice inputs: axes 3, steps 4 (absent)")
"""
    _check(tmp_path, tmp_path / "m.onnx", want, check)


CAFFE = """
input: "x"
input_shape { dim: 1 dim: 4 dim: 3 dim: 3 }
layer { name: "slice" type: "Slice" bottom: "x" top: "a" top: "b"
  slice_param { axis: 1 slice_point: 1 } }
layer { name: "mvn" type: "MVN" bottom: "b" top: "n" mvn_param { across_channels: true } }
layer { name: "tile" type: "Tile" bottom: "n" top: "t" tile_param { axis: 1 tiles: 2 } }
layer { name: "power" type: "Power" bottom: "t" top: "p" power_param { power: 2 } }
layer { name: "gpool" type: "Pooling" bottom: "p" top: "g"
  pooling_param { pool: AVE global_pooling: true } }
layer { name: "flat" type: "Flatten" bottom: "g" top: "y" }
"""


def test_caffe_layers_as_mo_extracted_them(tmp_path: Path) -> None:
    model = write_caffe(tmp_path, "m", CAFFE, {})
    want = {"slice": ("CaffeSlice", None, 1, 1), "mvn": ("MVNCaffe", None, 1, 1),
            "tile": ("AttributedTile", "Tile", 1, 2),
            "power": ("AttributedPower", "Power", 1, 2.0), "flat": ("Flatten", None, 1, -1),
            "gpool": ("Pooling", "Pooling", 1, "avg")}
    _check(tmp_path, model, want)


def test_mxnet_ops_as_mo_extracted_them(tmp_path: Path) -> None:
    net = Net()
    flat = net.op("Flatten", "flat", [net.sym.var("data")])
    y = net.op("take", "take", [flat, net.weight("idx", np.array([2, 0], np.float32))], axis=1)
    params = net.save(tmp_path, "m", [y])
    want = {"flat": ("Flatten", None, 1, -1), "take": ("AttributedGather", "Gather", 2, 1)}
    _check(tmp_path, params, want, input_shape=[[2, 3, 2]])


def test_a_tf_pack_is_mo_s_pack_of_its_inputs(tmp_path: Path) -> None:
    g = GraphBuilder()
    x = g.placeholder("x", [2, 3])
    e = g.node("Exp", "e", [x], T=np.float32)
    g.node("Pack", "pack", [x, e], T=np.float32, N=2, axis=1)
    check = """
    def check(graph):
        node = graph.get_op_nodes(name='pack')[0]
        ins = [node.in_port(i).get_source().node.op for i in sorted(node.in_ports())]
        if ins != ['Parameter', 'Exp']:
            raise ValueError(f"the Pack's inputs are {ins}")
"""
    _check(tmp_path, g.save(tmp_path / "m.pb"), {"pack": ("Pack", None, 2, 1)}, check)


REPLACES = """
    from {MO}.front.common.replacement import FrontReplacementPattern
    from {MO}.ops.broadcast import Broadcast
    from {MO}.ops.const import Const


    class Replaces(FrontReplacementPattern):  # as MO's ConstantOfShapeToBroadcast does
        enabled = True

        def find_and_replace_pattern(self, graph):
            for node in graph.get_op_nodes(op='ConstantOfShape'):
                cast = Broadcast(graph, {'name': node.name + '/Broadcast'}).create_node()
                node.in_port(0).get_connection().set_destination(cast.in_port(1))
                fill = Const(graph, {'value': node.fill_value}).create_node()
                cast.in_port(0).connect(fill.out_port(0))
                node.out_port(0).get_connection().set_source(cast.out_port(0))
"""


def test_a_shown_node_a_pass_replaced_and_left_unread_goes(tmp_path: Path) -> None:
    """The pass leaves MO's ConstantOfShape without inputs or readers (MO's clean-up removed
    it); it goes, and the IR computes what extgen's own does."""
    nodes = [helper.make_node("Shape", ["x"], ["sh"]),
             helper.make_node("ConstantOfShape", ["sh"], ["c"],
                              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [2.0])),
             helper.make_node("Mul", ["x", "c"], ["y"])]
    onnx.save(make_model(nodes, [("x", TensorProto.FLOAT, [2, 3])],
                         [("y", TensorProto.FLOAT, None)], {}, opset=13), tmp_path / "m.onnx")
    ext = write_ext(tmp_path, "ext", {"front/replaces.py": REPLACES}, MO)
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir",
                                 extensions=[ext])).xml
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(ov.Core().compile_model(str(xml), "CPU")([x])[0], 2 * x)
