"""graph.graph['cmd_params'] and the graph-level facts MO 2023.3's passes read hold MO's values
for the same command line (converter/legacy/argv.py); MO's small graph helpers that its pass
modules use behave as MO's, and what extgen lacks of them refuses in one line."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from openvino import PartialShape

from converter.graph.graph import Node
from converter.legacy.argv import mo_argv, set_graph_facts, set_is_cyclic
from converter.options import ConvertOptions, InputSpec, LayoutSpec
from tests.graph.conftest import chain


def test_nothing_given_has_mo_s_defaults() -> None:
    argv = mo_argv(ConvertOptions(Path("m.onnx")))
    assert argv.data_type == "FP32"  # MO sets it so; fp16 compression comes after its passes
    assert argv.input is None and argv.input_shape is None and argv.output is None
    assert argv.inputs_list == [] and argv.placeholder_shapes is None
    assert argv.placeholder_data_types == {} and argv.freeze_placeholder_with_value == {}
    assert argv.layout_values == {} and argv.mean_scale_values == {}
    assert "layout_values" in argv and "auto_disable_nhwc_to_nchw" not in argv  # a Namespace
    assert argv.static_shape is False and argv.counts is None  # extgen's own fields stay
    graph = chain("front")
    set_graph_facts(graph, argv, "onnx")
    assert graph.graph["user_shapes"] is None and graph.graph["packed_outputs"] is None
    assert graph.graph["freeze_placeholder"] == {} and graph.graph["inputs"] is None
    assert "variables_values" not in graph.graph
    set_graph_facts(graph, argv, "tf")
    assert graph.graph["variables_values"] == {}


def test_input_shape_alone_is_one_partial_shape() -> None:
    argv = mo_argv(ConvertOptions(Path("m.onnx"), input_shape=[(1, 3, -1)]))
    assert argv.input_shape == "[1,3,?]" and argv.input is None and argv.inputs_list == []
    assert argv.placeholder_shapes == PartialShape([1, 3, -1])
    graph = chain("front")
    set_graph_facts(graph, argv, "onnx")
    assert graph.graph["user_shapes"] == {"x": [{"shape": PartialShape([1, 3, -1]),
                                                 "port": None, "added": True}]}
    two = mo_argv(ConvertOptions(Path("m.onnx"), input_shape=[(1,), (2,)]))
    assert two.placeholder_shapes == [PartialShape([1]), PartialShape([2])]


def test_named_inputs_outputs_and_layouts() -> None:
    opts = ConvertOptions(Path("m.onnx"), outputs=["relu"], inputs=[
        InputSpec("x", (2, 4), np.dtype(np.int32)), InputSpec("k", value=np.array(3))],
        layouts=[LayoutSpec("x", ["N", "C"])])
    argv = mo_argv(opts)
    assert argv.input == "x,k" and argv.inputs_list == ["x", "k"]
    assert argv.placeholder_shapes == {"x": PartialShape([2, 4]), "k": None}
    assert argv.placeholder_data_types == {"x": np.int32}
    assert list(argv.freeze_placeholder_with_value) == ["k"] and argv.output == ["relu"]
    assert argv.layout_values == {"x": {"source_layout": "[N,C]", "target_layout": None}}
    graph = chain("front")
    set_graph_facts(graph, argv, "onnx")
    assert graph.graph["user_shapes"] == {"x": [{"shape": PartialShape([2, 4]), "port": None,
                                                 "added": True, "data_type": np.int32}]}
    assert graph.graph["inputs"] == ["x"] and argv.packed_user_shapes is graph.graph["user_shapes"]
    assert graph.graph["packed_outputs"] == {"relu": [{"out": 0}], "tanh": [{"out": 0}]}


def test_is_cyclic_is_whether_the_graph_has_a_cycle() -> None:
    graph = chain("middle")
    set_is_cyclic(graph)
    assert graph.graph["is_cyclic"] is False
    graph.add_edge("tanh", "relu", out=0, **{"in": 1})
    set_is_cyclic(graph)
    assert graph.graph["is_cyclic"] is True


def test_mo_s_node_and_graph_helpers() -> None:
    """Node.get_inputs/get_outputs, Graph.node, Connection.data, Op.normalize_outputs."""
    from converter.legacy.ops import Op

    graph = chain("front")
    assert graph.node["relu"] is graph.nodes["relu"]
    outs = Node(graph, "relu").get_outputs()
    assert sorted(v for v, _ in outs) == ["out", "tanh"]
    assert Node(graph, "relu").get_outputs({"out": 5}) == []
    assert [u for u, _ in Node(graph, "tanh").get_inputs()] == ["relu"]
    assert Node(graph, "relu").in_port(0).get_connection().data.get_shape() is None  # front
    graph.remove_node("out2")
    tanh = Node(graph, "tanh")
    tanh["out_ports_count"] = 2
    Op.normalize_outputs(tanh)
    results = [r for r in graph.get_op_nodes(op="Result") if r.id != "out"]
    assert sorted(r.name for r in results) == ["tanh/Fake_output_0/", "tanh/Fake_output_1/"]
    assert all(r.keep_output_port for r in results)


def test_a_stand_in_s_other_attributes_refuse_in_one_line() -> None:
    from converter.errors import ExtensionError
    from converter.legacy.mo_passes import STANDINS

    versioning = STANDINS["OpVersioning"]
    with pytest.raises(ExtensionError, match="MO's back transformation "
                                             "OpVersioning.opset_1_types, which extgen does not"):
        versioning.opset_1_types  # noqa: B018
    assert getattr(versioning, "opset_1_types", None) is None  # still a missing attribute


def test_without_openvino_shapes_are_int_arrays(monkeypatch) -> None:
    """openvino is not an extgen dependency: a conversion given --input_shape still gets MO's
    argv, its shapes as the int64 arrays older MO releases held."""
    monkeypatch.setitem(sys.modules, "openvino", None)  # importing it raises
    argv = mo_argv(ConvertOptions(Path("m.onnx"), input_shape=[(1, -1, 4)]))
    np.testing.assert_array_equal(argv.placeholder_shapes, [1, -1, 4])
