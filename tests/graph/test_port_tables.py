"""Port bookkeeping: nodes share one read-only table of empty ports per port count; tensor names
go to a small read-only table of the node's own; any other write gives the node its own dicts
(copy on write). What the ports read as stays what the dicts held before."""

from __future__ import annotations

from converter.graph.graph import Graph, Node


def _node(graph: Graph, name: str, ins: int, outs: int) -> Node:
    graph.add_node(name, kind="op", name=name, op="Op", in_ports_count=ins, out_ports_count=outs)
    node = Node(graph, name)
    node.update_node()
    return node


def test_nodes_with_the_same_port_counts_share_one_table() -> None:
    graph = Graph()
    a, b = _node(graph, "a", 2, 1), _node(graph, "b", 2, 1)
    assert a["_in_ports"] is b["_in_ports"]
    assert list(a.in_ports()) == [0, 1] and list(a.out_ports()) == [0]
    assert dict(a["_in_ports"]) == {0: {}, 1: {}}


def test_writing_a_port_gives_that_node_its_own_table() -> None:
    graph = Graph()
    a, b = _node(graph, "a", 1, 2), _node(graph, "b", 1, 2)
    a.out_port(1).add_tensor_names(["t"])
    assert a.out_port(1).get_tensor_names() == ["t"]
    assert b.out_port(1).get_tensor_names() == []
    assert a["_out_ports"] == {0: {}, 1: {"fw_tensor_debug_info": [("a", "t")]}}
    assert b["_out_ports"] is _node(graph, "c", 1, 2)["_out_ports"]  # still the shared one
    a._ports("out")[1]["rt_info"] = {"layout": "NCHW"}  # a write: the node's own dicts
    assert type(a["_out_ports"]) is dict
    own = {"fw_tensor_debug_info": [("a", "t")], "rt_info": {"layout": "NCHW"}}
    assert a["_out_ports"][1] == own
    assert a.out_port(1).get_tensor_names() == ["t"]


def test_tensor_names_move_with_set_source() -> None:
    graph = Graph()
    a, b, c = _node(graph, "a", 0, 1), _node(graph, "b", 0, 1), _node(graph, "c", 1, 0)
    a.out_port(0).add_tensor_names(["t", "u"])
    a.out_port(0).add_tensor_names(["t"])  # no duplicate
    a.out_port(0).connect(c.in_port(0))
    c.in_port(0).get_connection().set_source(b.out_port(0))
    assert b.out_port(0).get_tensor_names() == ["t", "u"]
    assert a.out_port(0).get_tensor_names() == []
    assert list(a.out_ports()) == [0]
    assert dict(b["_out_ports"][0]) == {"fw_tensor_debug_info": [("a", "t"), ("a", "u")]}


def test_named_port_past_the_count_keeps_its_place() -> None:
    graph = Graph()
    a = _node(graph, "a", 0, 1)
    a.out_port(3).add_tensor_names(["t"])
    assert list(a["_out_ports"]) == [0, 3]
    a["out_ports_count"] = 5
    a.update_node()  # as the dict did: 3 stays before the ports update_node adds
    assert list(a["_out_ports"]) == [0, 3, 1, 2, 4]
    assert a.out_port(3).get_tensor_names() == ["t"]


def test_ports_added_and_deleted_as_before() -> None:
    graph = Graph()
    a = _node(graph, "a", 1, 1)
    a.in_port(3)  # an index past the count registers that port
    assert list(a.in_ports()) == [0, 3]
    a.delete_input_port(0)
    assert list(a.in_ports()) == [3]
    a["in_ports_count"] = 2
    a.update_node()  # update_node adds the counted ports, keeps the others
    assert list(a.in_ports()) == [0, 1, 3]


def test_update_node_grows_a_shared_table() -> None:
    graph = Graph()
    a = _node(graph, "a", 1, 1)
    a["in_ports_count"] = 3
    a.update_node()
    assert list(a.in_ports()) == [0, 1, 2]
    a["in_ports_count"] = 1
    a.update_node()  # as before: update_node never drops a port
    assert list(a.in_ports()) == [0, 1, 2]


def test_a_node_with_many_named_ports_gets_dicts() -> None:
    graph = Graph()
    a = _node(graph, "a", 0, 40)
    for i in range(40):
        a.out_port(i).add_tensor_names([f"t{i}"])
    assert type(a["_out_ports"]) is dict
    assert [a.out_port(i).get_tensor_names() for i in (0, 39)] == [["t0"], ["t39"]]
