"""TF control flow: While (functional, and TF1 frames in frozen graphs) as Loop-5 (a Keras LSTM's
as LSTMSequence-5, a Keras GRU's as GRUSequence-5), If (and lowered Switch/Merge conds) as If-8,
TensorList ops in loops. Small graphs written by TensorFlow (tests/tf_control_graphs.py)
convert and match TF's own outputs in the shim and in OpenVINO, on two inputs, and ovc's IR (a
peer, never part of extgen) on the same inputs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from converter.errors import ConversionError
from converter.front.tf.bodies import prepare_loops
from converter.front.tf.loader import load_graph_def
from converter.front.tf.writer import GraphBuilder
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine
from tests.tf_control_graphs import GRAPHS, control_graph

FORMS = {"frozen": "frozen.pb", "saved_model": "saved_model"}
CASES = [(name, form) for name in GRAPHS for form in FORMS]
FRAME_OPS = {"Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond"}


def _convert(folder: Path, form: str, out: Path) -> Path:
    shape = list(np.load(folder / "input.npy").shape)
    return convert(ConvertOptions(folder / FORMS[form], output_dir=out,
                                  input_shape=[shape])).xml


def _run(xml: Path, engine: str, x: np.ndarray) -> np.ndarray:
    runner = open_engine(engine, xml, "CPU")
    outputs = runner.run({runner.inputs()[0].name: x})
    assert len(outputs) == 1  # the loops' exits and the unused reads are no outputs
    return next(iter(outputs.values()))


def _ovc(model: Path, xs: list[np.ndarray]) -> list[np.ndarray]:
    import openvino as ov

    converted = ov.convert_model(str(model), input=[list(xs[0].shape)])
    compiled = ov.Core().compile_model(converted, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return [compiled(x)[0] for x in xs]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "form"), CASES)
def test_control_flow_matches_tf_and_ovc(name: str, form: str, tmp_path: Path) -> None:
    folder = control_graph(name)
    xml = _convert(folder, form, tmp_path)
    types = set(re.findall(r'type="(\w+)"', xml.read_text()))
    assert {"cond": "If", "lstm_seq": "LSTMSequence", "gru_seq": "GRUSequence"}.get(
        name, "Loop") in types
    if name == "gru_v1":  # its input list, read at the iteration, is a sliced Loop input
        assert re.search(r'<input external_port_id="\d+" internal_layer_id="\d+" axis="0"',
                         xml.read_text())
    assert not types & FRAME_OPS and not any(t.startswith("TensorList") for t in types)
    xs = [np.load(folder / f"input{s}.npy") for s in ("", "2")]
    wants = [np.load(folder / f"expected{s}.npy") for s in ("", "2")]
    assert np.abs(wants[0] - wants[1]).max() > 1e-2  # the output depends on the input
    peers = _ovc(folder / FORMS[form], xs)
    for x, want, peer in zip(xs, wants, peers, strict=True):
        for engine in ("shim", "openvino"):
            np.testing.assert_allclose(_run(xml, engine, x), want, rtol=1e-5, atol=1e-5,
                                       err_msg=engine)
        np.testing.assert_allclose(_run(xml, "openvino", x), peer, rtol=1e-5, atol=1e-5,
                                   err_msg="ovc")


def test_frames_become_one_while_with_its_initial_condition() -> None:
    graph_def = load_graph_def(control_graph("while_stack") / "frozen.pb")
    assert FRAME_OPS <= {n.op for n in graph_def.node}
    prepare_loops(graph_def)
    ops = [n.op for n in graph_def.node]
    assert not FRAME_OPS & set(ops) and ops.count("While") == 1
    loop = next(n for n in graph_def.node if n.op == "While")
    functions = {f.signature.name: f for f in graph_def.library.function}
    body = functions[loop.attr["body"].func.name]
    # one input per loop variable, then the cond on their initial values
    assert len(loop.input) == len(body.signature.input_arg) + 1
    assert "/initial_cond/" in loop.input[-1]


def test_nested_frames_become_nested_whiles() -> None:
    graph_def = load_graph_def(control_graph("nested") / "frozen.pb")
    prepare_loops(graph_def)
    outer = [n for n in graph_def.node if n.op == "While"]
    functions = {f.signature.name: f for f in graph_def.library.function}
    body = functions[outer[0].attr["body"].func.name]
    assert len(outer) == 1 and [n.op for n in body.node_def].count("While") == 1


def test_lowered_cond_becomes_an_if_with_two_branches() -> None:
    graph_def = load_graph_def(control_graph("cond") / "frozen.pb")
    assert {"Switch", "Merge"} <= {n.op for n in graph_def.node}
    prepare_loops(graph_def)
    ops = [n.op for n in graph_def.node]
    assert not {"Switch", "Merge"} & set(ops) and ops.count("If") == 1
    cond = next(n for n in graph_def.node if n.op == "If")
    functions = {f.signature.name: f for f in graph_def.library.function}
    then, other = (functions[cond.attr[k].func.name] for k in ("then_branch", "else_branch"))
    assert {n.op for n in then.node_def} >= {"Mul", "AddV2"}
    assert {n.op for n in other.node_def} >= {"Exp", "Sub"}


def test_reserved_list_of_unknown_shape_outside_a_loop_is_one_clear_error(
        tmp_path: Path) -> None:
    g = GraphBuilder()
    shape = g.const("shape", np.array([-1, 3], np.int32))
    size = g.const("size", np.array(2, np.int32))
    reserved = g.node("TensorListReserve", "list", [shape, size], element_dtype=np.float32,
                      shape_type=np.int32)
    x = g.placeholder("x", [2, 3])
    written = g.node("TensorListSetItem", "write", [reserved, g.const("i", np.array(0,
                     np.int32)), x], element_dtype=np.float32)
    g.node("TensorListStack", "y", [written, shape], element_dtype=np.float32)
    model = g.save(tmp_path / "list.pb")
    with pytest.raises(ConversionError, match="TensorList reserved with an unknown element"):
        convert(ConvertOptions(model, output_dir=tmp_path / "ir"))


def test_what_a_read_noop_holds_is_no_output(tmp_path: Path) -> None:
    # TF2's frozen graphs: the output waits (^NoOp) for a NoOp holding loop exits and unused
    # variable reads; those are no outputs
    g = GraphBuilder()
    x = g.placeholder("x", [2])
    w = g.node("Identity", "w/read", [g.const("w", np.ones(2, np.float32))], T=np.float32)
    y = g.node("Mul", "y", [x, x], T=np.float32)
    g.node("NoOp", "hold", [f"^{w}"])
    g.node("Identity", "out", [y, "^hold"], T=np.float32)
    xml = convert(ConvertOptions(g.save(tmp_path / "m.pb"), output_dir=tmp_path / "ir")).xml
    assert re.findall(r'<layer id="\d+" name="([^"]+)" type="Result"', xml.read_text()) == [
        "out/sink_port_0"]


def test_an_assert_the_output_waits_for_is_dropped_as_ovc_drops_it(tmp_path: Path) -> None:
    # tf.debugging checks in frozen TF1 graphs: Assert(cond, data) held by a control input
    g = GraphBuilder()
    x = g.placeholder("x", [1, 3])
    g.node("Assert", "check", [g.const("ok", np.bool_(True)), x], T=[np.float32], summarize=3)
    g.node("Relu", "y", [x, "^check"], T=np.float32)
    model = g.save(tmp_path / "m.pb")
    xml = convert(ConvertOptions(model, output_dir=tmp_path / "ir")).xml
    ours = [op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ordered_ops()]
    theirs = [op.get_type_name() for op in ov.convert_model(str(model)).get_ordered_ops()]
    assert ours == theirs == ["Parameter", "Relu", "Result"]
