"""MO's Port, port data and Connection API as extension code calls it (MO's port.py and
connection.py semantics), in the front stage and in the middle stage."""

from __future__ import annotations

import numpy as np
import pytest

from converter.graph.graph import Graph, Node
from tests.graph.conftest import chain, op_node


def _consumers(port) -> list[str]:
    return sorted(p.node.id for p in port.get_destinations())


def test_ports_are_values_with_a_readable_repr(graph: Graph) -> None:
    relu = Node(graph, "relu")
    assert {relu.in_port(0), Node(graph, "relu").in_port(0)} == {relu.in_port(0)}
    assert relu.in_port(0) != relu.out_port(0)
    assert repr(relu.out_port(0)) == "Port('relu', out, 0)"


def test_get_destination_of_a_single_consumer_none_or_several(graph: Graph) -> None:
    tanh, relu = Node(graph, "tanh"), Node(graph, "relu")
    assert tanh.out_port(0).get_destination() == Node(graph, "out2").in_port(0)
    assert Node(graph, "out2").add_output_port(0).get_destination() is None
    with pytest.raises(ValueError, match="2 destinations"):
        relu.out_port(0).get_destination()


def test_port_data_has_valid() -> None:
    data = Node(chain("middle"), "relu").out_port(0).data
    assert not data.has_valid("value")
    data.set_value(np.ones((2, 3), np.float32))
    assert data.has_valid("value") and data.get_shape() == (2, 3)
    assert not Node(chain("front"), "relu").out_port(0).data.has_valid("shape")  # no tensor yet


def test_connection_of_an_output_port_is_its_source_and_all_consumers(graph: Graph) -> None:
    relu = Node(graph, "relu")
    conn = relu.out_port(0).get_connection()
    assert conn.get_source() == relu.out_port(0)
    assert sorted(p.node.id for p in conn.get_destinations()) == ["out", "tanh"]
    with pytest.raises(ValueError, match="several destinations"):
        conn.get_destination()
    single = Node(graph, "tanh").in_port(0).get_connection()  # MO: an input's connection
    assert single.get_source() == relu.out_port(0)
    assert single.get_destination() == Node(graph, "tanh").in_port(0)


def test_add_destination_feeds_one_more_input(graph: Graph) -> None:
    relu, extra = Node(graph, "relu"), op_node(graph, "extra", "Result")
    conn = relu.out_port(0).get_connection()
    conn.add_destination(extra.in_port(0))
    assert extra.in_port(0) in conn.get_destinations()
    assert _consumers(relu.out_port(0)) == ["extra", "out", "tanh"]


def test_insert_node_puts_a_node_between_source_and_every_destination(graph: Graph) -> None:
    relu, clamp = Node(graph, "relu"), op_node(graph, "clamp", "Clamp")
    relu.out_port(0).get_connection().insert_node(clamp)
    assert _consumers(relu.out_port(0)) == ["clamp"]
    assert _consumers(clamp.out_port(0)) == ["out", "tanh"]
    assert Node(graph, "tanh").in_port(0).get_source() == clamp.out_port(0)


def test_insert_node_on_an_input_connection_moves_that_input_alone(graph: Graph) -> None:
    relu, clamp = Node(graph, "relu"), op_node(graph, "clamp", "Clamp")
    Node(graph, "tanh").in_port(0).get_connection().insert_node(clamp)
    assert _consumers(relu.out_port(0)) == ["clamp", "out"]
    assert _consumers(clamp.out_port(0)) == ["tanh"]


def test_remove_disconnects_the_source_from_its_destinations(graph: Graph) -> None:
    relu = Node(graph, "relu")
    relu.out_port(0).get_connection().remove()
    assert relu.out_port(0).disconnected()
    assert Node(graph, "out").in_port(0).get_source() is None
    assert Node(graph, "x").out_port(0).get_destination() == relu.in_port(0)


def test_port_misuse_is_a_value_error(graph: Graph) -> None:
    relu = Node(graph, "relu")
    with pytest.raises(ValueError, match="for input ports"):
        relu.out_port(0).get_source()
    with pytest.raises(ValueError, match="for output ports"):
        relu.in_port(0).get_destinations()
    with pytest.raises(ValueError, match="from an output port to an input port"):
        relu.out_port(0).connect(Node(graph, "tanh").out_port(0))
    assert relu.add_input_port(1).get_tensor_names() == []  # nothing feeds it


def test_front_stage_ports_carry_no_tensor() -> None:
    data = Node(chain("front"), "relu").out_port(0).data
    with pytest.raises(ValueError, match="no tensor here in the front stage"):
        data.set_shape((1, 3))


def test_a_value_set_on_an_input_port_reaches_its_const() -> None:
    """MO's port.data.set_value gives the producing Const the value too (the IR writes the
    Const's): a pass that rewrites a Transpose's order so changes the model."""
    graph = Graph()
    graph.stage = "middle"
    order = op_node(graph, "order", "Const", type="Const", value=np.array([0, 1]))
    transpose = op_node(graph, "t", "Transpose", type="Transpose")
    order.out_port(0).connect(transpose.in_port(1))
    transpose.in_port(1).data.set_value(np.array([1, 0]))
    assert order["value"].tolist() == transpose.in_port(1).data.get_value().tolist() == [1, 0]


def test_replace_node_moves_the_consumers_to_the_new_node(graph: Graph) -> None:
    """MO's Node.replace_node: what relu fed, a new node feeds; relu goes."""
    new = op_node(graph, "new", "Sigmoid")
    Node(graph, "x").out_port(0).connect(new.in_port(0))
    Node(graph, "relu").replace_node(new)
    assert "relu" not in graph
    assert {p.node.id for p in new.out_port(0).get_destinations()} == {"out", "tanh"}
