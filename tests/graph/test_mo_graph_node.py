"""MO's Graph and Node API as extension code calls it (semantics of MO's graph.py)."""

from __future__ import annotations

import numpy as np
import pytest

from converter.errors import ConversionError, UsageError
from converter.graph.graph import Graph, Node
from tests.graph.conftest import chain, op_node


def test_get_node_id_by_name_finds_the_id_or_fails() -> None:
    graph = chain("front")
    graph.nodes["relu"]["name"] = "features/relu"
    assert graph.get_node_id_by_name("features/relu") == "relu"
    with pytest.raises(UsageError, match="no node named 'nope'"):
        graph.get_node_id_by_name("nope")


def test_erase_node_reconnects_its_input_to_its_consumers_in_the_front_stage() -> None:
    graph = chain("front")
    graph.erase_node(Node(graph, "relu"))
    assert "relu" not in graph
    x = Node(graph, "x")
    assert sorted(p.node.id for p in x.out_port(0).get_destinations()) == ["out", "tanh"]
    assert Node(graph, "tanh").in_port(0).get_source() == x.out_port(0)


def test_erase_node_of_a_source_just_removes_it(graph: Graph) -> None:
    graph.erase_node(Node(graph, "out2"))
    assert "out2" not in graph and Node(graph, "tanh").out_port(0).disconnected()


def test_pseudo_topological_sort_and_its_reverse(graph: Graph) -> None:
    ops = [n.id for n in graph.pseudo_topological_sort() if n.kind == "op"]
    assert ops.index("x") < ops.index("relu") < ops.index("tanh") < ops.index("out2")
    assert graph.pseudo_topological_sort(reverse=True) == graph.pseudo_topological_sort()[::-1]
    assert graph.topological_ids() == [n.id for n in graph.topological_order()]


def test_topological_order_takes_the_ready_node_added_first() -> None:
    graph = Graph()
    for nid in "dcba":
        op_node(graph, nid, "Op")
    graph.add_edges_from([("d", "a"), ("c", "b"), ("b", "a")])
    assert graph.topological_ids() == ["d", "c", "b", "a"]
    graph.add_edge("a", "c")
    with pytest.raises(ConversionError, match="cycle: "):
        graph.topological_ids()


def test_node_identity_membership_and_repr(graph: Graph) -> None:
    relu = Node(graph, "relu")
    assert relu.node == relu.id == "relu"  # MO's obsolete alias of id
    assert "op" in relu and "no_such_attr" not in relu
    assert {relu, Node(graph, "relu"), Node(graph, "x")} == {relu, Node(graph, "x")}
    assert repr(relu) == "Node('relu', op='ReLU')"


def test_add_and_delete_ports(graph: Graph) -> None:
    relu = Node(graph, "relu")
    assert relu.add_input_port(1).disconnected() and 1 in relu.in_ports()
    relu.add_output_port(1, skip_if_exist=True)
    assert sorted(relu.out_ports()) == [0, 1]
    relu.delete_input_port(1)
    relu.delete_output_port(1)
    assert sorted(relu.in_ports()) == [0] and sorted(relu.out_ports()) == [0]
    relu.delete_input_port(0)  # a connected port is disconnected first
    assert not relu.is_in_port_connected(0) and Node(graph, "x").out_port(0).disconnected()


def test_is_port_connected(graph: Graph) -> None:
    relu, out2 = Node(graph, "relu"), Node(graph, "out2")
    assert relu.is_in_port_connected(0) and relu.is_out_port_connected(0)
    assert not relu.is_in_port_connected(1) and not out2.is_out_port_connected(0)


def test_legacy_edge_access_by_port(graph: Graph) -> None:
    tanh = Node(graph, "tanh")
    assert tanh.in_edge()["in"] == 0 and tanh.out_edge(0)["out"] == 0
    assert list(tanh.in_edges()) == [0] and list(tanh.out_edges()) == [0]
    tanh.in_edge(0)["permutation"] = None  # the dict is the edge's own: MO code writes to it
    assert tanh.in_edges()[0]["permutation"] is None


def test_sorted_inputs_and_outputs_are_id_attrs_pairs_by_port() -> None:
    graph = chain("front")
    concat = op_node(graph, "concat", "Concat")
    Node(graph, "tanh").out_port(0).connect(concat.in_port(1))
    Node(graph, "relu").out_port(0).connect(concat.in_port(0))
    assert [(u, d["in"]) for u, d in concat.get_sorted_inputs()] == [("relu", 0), ("tanh", 1)]
    split = op_node(graph, "split", "Split")
    split.out_port(1).connect(op_node(graph, "r1", "Result").in_port(0))
    split.out_port(0).connect(op_node(graph, "r0", "Result").in_port(0))
    assert [(v, d["out"]) for v, d in split.get_sorted_outputs()] == [("r0", 0), ("r1", 1)]


def test_sorted_edges_carry_their_tensor_names_as_mo_s_loaders_put_them() -> None:
    """MO's code reads a front edge's fw_tensor_debug_info (Kaldi's set_ports); extgen keeps
    the names on the producer's port and puts them on the edge MO's code reads."""
    graph = chain("front")
    Node(graph, "relu").out_port(0).add_tensor_names(["r"], "relu")
    ((_, edge),) = Node(graph, "tanh").get_sorted_inputs()
    assert edge["fw_tensor_debug_info"] == [("relu", "r")]
    outs = Node(graph, "x").get_sorted_outputs()
    assert [d["fw_tensor_debug_info"] for _, d in outs] == [[]]
    graph.own_edge_attrs("relu", "tanh")["fw_tensor_debug_info"].append(("relu", "r2"))
    assert Node(graph, "tanh").get_sorted_inputs()[0][1]["fw_tensor_debug_info"][-1][1] == "r2"


def test_copy_node_is_a_new_unconnected_node_named_by_its_id(graph: Graph) -> None:
    relu = Node(graph, "relu")
    relu["alpha"] = 0.5
    copy = relu.copy_node({"alpha": 0.1})
    assert copy.id != "relu" and copy.name == copy.id
    assert (copy.op, copy.alpha, relu.alpha) == ("ReLU", 0.1, 0.5)
    assert copy.in_port(0).disconnected() and copy.out_port(0).disconnected()
    assert relu.in_port(0).get_source() == Node(graph, "x").out_port(0)


def test_a_data_nodes_producers_and_consumers_are_lists_as_in_mo() -> None:
    graph = chain("middle")
    data = Node(graph, "relu").out_port(0).data_node()
    assert data.in_nodes() == [Node(graph, "relu")] and data.in_node() == Node(graph, "relu")
    assert sorted(n.id for n in data.out_nodes()) == ["out", "tanh"]
    assert Node(graph, "tanh").in_node(0).in_node(0).id == "relu"  # op -> data -> op


def test_missing_attributes_follow_mos_rules(graph: Graph) -> None:
    relu = Node(graph, "relu")
    with pytest.raises(AttributeError, match="Attribute nope missing"):
        relu.nope  # noqa: B018
    with pytest.raises(AttributeError, match="Attribute nope missing"):
        relu.nope = 1
    relu["nope"] = 1  # item assignment adds the attribute
    relu.nope = 2
    assert relu.nope == 2


def test_get_data_nodes_by_value() -> None:
    graph = chain("middle")
    Node(graph, "x").out_port(0).data.set_value(np.zeros(2, np.float32))
    assert [n.in_node().id for n in graph.get_data_nodes(has_value=True)] == ["x"]
    assert "x" not in [n.in_node().id for n in graph.get_data_nodes(has_value=False)]


def test_a_cycle_or_an_empty_graph_is_a_conversion_error() -> None:
    graph = chain("front")
    Node(graph, "tanh").out_port(0).connect(op_node(graph, "add", "Add").in_port(0))
    Node(graph, "add").out_port(0).connect(Node(graph, "relu").in_port(0))
    with pytest.raises(ConversionError, match="cycle: .*relu"):
        graph.pseudo_topological_sort()
    with pytest.raises(ConversionError, match="empty after cleanup"):
        Graph().check_empty_graph("cleanup")


def test_the_package_loads_its_names_on_first_use() -> None:
    import converter.graph as package

    assert (package.Graph, package.Node) == (Graph, Node)
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        package.Nope  # noqa: B018
