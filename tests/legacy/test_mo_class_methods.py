"""MO's static methods that MO's own modules call by class: Loop.pull_constant_inputs_into_body
and normalize_input_output_ports (MO's middle/MoveConstToLoopBody.py, copied unmodified),
ProposalOp.proposal_infer and RNN.reverse_infer."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import numpy as np
import onnx
import onnxruntime as ort
import openvino as ov
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from converter.errors import ExtensionError
from converter.graph.graph import Graph, Node
from converter.legacy import legacy_imports
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.legacy.mo_corpus import PREFIX, corpus

W = np.arange(6, dtype=np.float32).reshape(2, 3)


def _loop_model() -> onnx.ModelProto:
    """Loop 3 times: w (a Const, passed on unchanged) and v (a Const, plus 1 each time) are
    carried; acc += w * v."""
    f = [helper.make_tensor_value_info(n, T.FLOAT, [2, 3]) for n in ("w", "v", "acc")]
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Identity", ["w"], ["w_out"]),
         helper.make_node("Add", ["v", "one"], ["v_out"]),
         helper.make_node("Mul", ["w", "v"], ["wv"]),
         helper.make_node("Add", ["acc", "wv"], ["acc_out"])], "body",
        [helper.make_tensor_value_info("i", T.INT64, []),
         helper.make_tensor_value_info("c", T.BOOL, []), *f],
        [helper.make_tensor_value_info("c_out", T.BOOL, []),
         *[helper.make_tensor_value_info(n, T.FLOAT, [2, 3]) for n in ("w_out", "v_out",
                                                                         "acc_out")]],
        [numpy_helper.from_array(np.float32(1), "one")])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "cond", "W", "V", "x"], ["w_end", "v_end", "y"],
                          body=body)], "g",
        [helper.make_tensor_value_info("x", T.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])],
        [numpy_helper.from_array(np.array(3, np.int64), "M"),
         numpy_helper.from_array(np.array(True), "cond"), numpy_helper.from_array(W, "W"),
         numpy_helper.from_array(-W, "V")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


FRONT_PULL = """
from openvino.tools.mo.front.common.replacement import FrontReplacementPattern
from openvino.tools.mo.ops.loop import Loop


class PullConstants(FrontReplacementPattern):
    enabled = True

    def find_and_replace_pattern(self, graph):
        for loop in graph.get_op_nodes(op='Loop'):
            Loop.pull_constant_inputs_into_body(loop)
            Loop.normalize_input_output_ports(loop)
"""


@pytest.mark.parametrize("phase", ["front", "middle"])
def test_move_const_to_loop_body_moves_only_the_unchanged_constant(tmp_path, phase) -> None:
    """MO's pass (middle), or the same calls from a front pass (no data nodes yet)."""
    if phase == "middle":
        rel = "middle/MoveConstToLoopBody.py"
        (tmp_path / "ext" / "middle").mkdir(parents=True)
        shutil.copyfile(corpus() / PREFIX / rel, tmp_path / "ext" / rel)
    else:
        (tmp_path / "ext" / "front").mkdir(parents=True)
        (tmp_path / "ext" / "front" / "pull.py").write_text(FRONT_PULL)
    model = _loop_model()
    onnx.save(model, tmp_path / "loop.onnx")
    xml = convert(ConvertOptions(tmp_path / "loop.onnx", output_dir=tmp_path / "ir",
                                 extensions=[tmp_path / "ext"])).xml
    (loop,) = [e for e in ET.parse(xml).iter("layer") if e.get("type") == "Loop"]
    assert len(loop.find("input")) == 4  # M, cond, V and x: W went into the body
    inputs = [int(e.get("external_port_id")) for e in loop.find("port_map").iter("input")]
    assert sorted(inputs) == [-1, 1, 2, 3]
    body = [e.get("name") for e in loop.find("body").iter("layer") if e.get("type") == "Const"]
    assert "W" in body
    x = np.random.default_rng(3).standard_normal((2, 3)).astype(np.float32)
    compiled = ov.Core().compile_model(str(xml), "CPU")
    want = ort.InferenceSession(model.SerializeToString()).run(["y"], {"x": x})[0]
    np.testing.assert_allclose(compiled([x])[compiled.output("y")], want, rtol=1e-6)


@pytest.mark.parametrize(("rel", "wants"), [
    # MO's loop_ext.py takes the Loop node and reaches MO's ONNX loader
    ("front/onnx/loop_ext.py", ("uses MO's front.onnx.loader.add_initializers_and_inputs_to_graph,"
                                " which extgen does not implement", "leave MO's body extractors")),
    # MO's LoopNormalize reads MO's port maps of the Loop
    ("front/onnx/LoopNormalize.py", ("uses MO's ops.loop.Loop.output_port_map (iterating it)",
                                     "port_maps['body']")),
])
def test_mo_s_onnx_loop_modules_refuse_in_one_line(tmp_path, rel, wants) -> None:
    """Copied unmodified: each stops the conversion with one line naming its file and line."""
    (tmp_path / "ext" / "front" / "onnx").mkdir(parents=True)
    shutil.copyfile(corpus() / PREFIX / rel, tmp_path / "ext" / rel)
    onnx.save(_loop_model(), tmp_path / "loop.onnx")
    with pytest.raises(ExtensionError) as err:
        convert(ConvertOptions(tmp_path / "loop.onnx", output_dir=tmp_path / "ir",
                               extensions=[tmp_path / "ext"]))
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"{tmp_path / 'ext' / rel}:")
    assert all(want in text for want in wants), text


@pytest.mark.parametrize("name", ["GRU", "LSTM"])
def test_mo_s_recurrent_op_modules_build_their_ops(tmp_path, name: str) -> None:
    """MO's ops/GRU.py and ops/LSTM.py, loaded unmodified, build nodes whose reverse_infer is
    MO's RNN.reverse_infer."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"mo_{name}", corpus() / PREFIX / "ops" /
                                                  f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    with legacy_imports():
        spec.loader.exec_module(module)
        from mo.ops.RNN import RNN

        node = getattr(module, name)(Graph(), {"name": "rnn"}).create_node()
        assert node.op == name and node.reverse_infer is RNN.reverse_infer


def _node_after(graph: Graph, name: str, shape: tuple, **attrs) -> Node:
    graph.add_node("src", kind="op", name="src", op="Parameter")
    graph.add_node(name, kind="op", name=name, **attrs)
    node = Node(graph, name)
    Node(graph, "src").out_port(0).connect(node.in_port(0))
    node.in_port(0).data.set_shape(shape)
    return node


@pytest.mark.parametrize("used", [False, True])
def test_proposal_infer_gives_mo_s_shapes(used: bool) -> None:
    graph = Graph()
    graph.stage = "middle"
    node = _node_after(graph, "proposal", (2, 18, 5, 5), op="Proposal", post_nms_topn=30)
    if used:
        graph.add_node("scores_sink", kind="op", name="scores_sink", op="Result")
        node.out_port(1).connect(Node(graph, "scores_sink").in_port(0))
    with legacy_imports():
        from openvino.tools.mo.ops.proposal import ProposalOp

        ProposalOp.proposal_infer(node)
    assert node.out_port(0).data.get_shape() == (60, 5)
    if used:
        assert node.out_port(1).data.get_shape() == (60,)


def test_rnn_reverse_infer_keeps_a_known_input_and_refuses_an_unknown_one() -> None:
    graph = Graph()
    graph.stage = "middle"
    node = _node_after(graph, "gru", (5, 2, 8), op="GRU")
    with legacy_imports():
        from extensions.ops.RNN import RNN

        RNN.reverse_infer(node)
        assert node.in_port(0).data.get_shape() == (5, 2, 8)
        node.in_port(0).data.set_shape(None)
        with pytest.raises(ExtensionError, match="MO's RNN.reverse_infer on 'gru'.*does not "
                                                 "implement reverse shape inference"):
            RNN.reverse_infer(node)


MIDDLE_NOTHING = """
from openvino.tools.mo.middle.replacement import MiddleReplacementPattern


class Nothing(MiddleReplacementPattern):
    enabled = True

    def find_and_replace_pattern(self, graph):
        pass
"""


def test_a_loop_output_keeps_no_resolver_add_with_a_middle_pass(tmp_path) -> None:
    """MO's IR had no Add of zero after a Loop whose other outputs nothing reads (MO dropped
    them; OpenVINO then dropped the Add): the IR is the one converted without extensions."""
    (tmp_path / "ext" / "middle").mkdir(parents=True)
    (tmp_path / "ext" / "middle" / "nothing.py").write_text(MIDDLE_NOTHING)
    onnx.save(_loop_model(), tmp_path / "loop.onnx")
    xmls = [convert(ConvertOptions(tmp_path / "loop.onnx", output_dir=tmp_path / name,
                                   extensions=ext)).xml
            for name, ext in (("ir", [tmp_path / "ext"]), ("plain", []))]
    assert [sorted(e.get("type") for e in ET.parse(x).iter("layer")) for x in xmls] == [
        sorted(e.get("type") for e in ET.parse(xmls[1]).iter("layer"))] * 2
