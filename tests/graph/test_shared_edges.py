"""Edge attributes: equal edges share one read-only dict (and key dict); networkx's edge methods
and MO's node.in_edge() keep working, a write into a shared dict is one clear error."""

from __future__ import annotations

import copy
import pickle

import networkx as nx
import numpy as np
import pytest

from converter.graph.edges import Neighbours
from converter.graph.graph import Graph, Node
from tests.graph.conftest import chain, op_node


def test_equal_edges_share_their_dicts() -> None:
    graph = Graph()
    graph.add_edge("a", "b", out=0)
    graph.add_edge("c", "d", out=0)
    graph.add_edge("e", "f", out=1)
    assert graph._succ["a"]["b"] is graph._succ["c"]["d"] is graph._pred["d"]["c"]
    assert graph["a"]["b"][0] == {"out": 0} and graph["e"]["f"][0] == {"out": 1}
    assert graph["a"]["b"][0] is graph["c"]["d"][0] is not graph["e"]["f"][0]


def test_writing_a_shared_dict_names_the_way_to_write() -> None:
    graph = Graph()
    graph.add_edge("a", "b", out=0)
    for write in (lambda d: d.__setitem__("bin", "weights"), lambda d: d.update(x=1),
                  lambda d: d.pop("out"), lambda d: d.clear()):
        with pytest.raises(TypeError, match="own_edge_attrs"):
            write(graph.get_edge_data("a", "b", 0))
    assert graph.get_edge_data("a", "b", 0) == {"out": 0}


def test_node_in_edge_is_the_edges_own_dict() -> None:
    graph = chain("front")
    relu = Node(graph, "relu")
    relu.in_edge(0)["bin"] = "weights"
    assert graph.get_edge_data("x", "relu", 0) == {"out": 0, "in": 0, "bin": "weights"}
    assert graph.get_edge_data("tanh", "out2", 0) == {"out": 0, "in": 0}  # the same before
    relu.out_edges()[0]["x"] = 1
    assert [d.get("x") for *_, d in graph.out_data("relu")].count(1) == 1  # one of two edges


def test_networkx_edge_methods_keep_their_meaning() -> None:
    graph = Graph()
    assert graph.add_edges_from([("a", "b"), ("a", "b", {"in": 1}), ("a", "b", 5),
                                 ("a", "b", 7, {"in": 2})], out=0) == [0, 1, 5, 7]
    assert graph.add_edge("a", "b", key=1, bin="w") == 1  # the edge's attributes updated
    assert graph["a"]["b"] == {0: {"out": 0}, 1: {"out": 0, "in": 1, "bin": "w"},
                               5: {"out": 0}, 7: {"out": 0, "in": 2}}
    graph.remove_edge("a", "b")  # the last added, as networkx
    graph.remove_edge("a", "b", 0)
    assert list(graph["a"]["b"]) == [1, 5]
    with pytest.raises(nx.NetworkXError, match="with key 0"):
        graph.remove_edge("a", "b", 0)
    graph.remove_edges_from([("a", "b", 1), ("a", "b", 5), ("x", "y")])
    assert graph.number_of_edges() == 0 and "b" not in graph["a"]
    with pytest.raises(nx.NetworkXError, match="a-b is not in the graph"):
        graph.remove_edge("a", "b")


def test_values_equal_across_types_are_not_merged() -> None:
    graph = Graph()
    graph.add_edge("a", "b", out=0)
    graph.add_edge("c", "d", out=False)
    graph.add_edge("e", "f", out=np.int64(0))
    graph.add_edge("g", "h", names=["t"])
    assert type(graph["c"]["d"][0]["out"]) is bool
    assert type(graph["e"]["f"][0]["out"]) is np.int64
    graph["g"]["h"][0]["names"].append("u")  # a dict of its own: written in place
    assert graph["g"]["h"][0] == {"names": ["t", "u"]}


def test_graph_copies_and_pickles() -> None:
    graph = Graph()
    op_node(graph, "a", "Parameter")
    graph.add_edge("a", "b", out=0)
    graph.add_edge("a", "c", out=1)  # two neighbours: a dict in the Neighbours
    for twin in (graph.copy(), copy.deepcopy(graph), pickle.loads(pickle.dumps(graph))):
        assert twin.get_edge_data("a", "b", 0) == {"out": 0}
        assert list(twin.successors("a")) == ["b", "c"]
        assert twin._succ["a"]["c"] is twin._pred["c"]["a"]
        twin.add_edge("a", "b", 0, out=1)
        assert graph.get_edge_data("a", "b", 0) == {"out": 0}
    assert nx.relabel_nodes(graph, {"a": "z"}).get_edge_data("z", "b", 0) == {"out": 0}


def test_a_node_keeps_one_neighbour_without_a_dict() -> None:
    graph = Graph()
    graph.add_edge("a", "b", out=0)
    succ = graph._succ["a"]
    assert type(succ) is Neighbours and type(succ._value) is not dict  # one neighbour: slots
    graph.add_edge("a", "c", out=0)
    graph.add_edge("a", "d", out=1)
    assert list(succ) == ["b", "c", "d"] and len(succ) == 3 and "c" in succ
    assert succ == {"b": {0: {"out": 0}}, "c": {0: {"out": 0}}, "d": {0: {"out": 1}}}
    graph.remove_node("b")
    graph.remove_edge("a", "d")
    assert dict(succ.items()) == {"c": {0: {"out": 0}}} and type(succ._value) is not dict
    assert list(graph.successors("a")) == ["c"] and list(graph.predecessors("c")) == ["a"]
    graph.remove_edge("a", "c")
    assert len(succ) == 0 and list(succ.items()) == [] and succ.get("c") is None
    with pytest.raises(KeyError):
        succ["c"]


def test_networkx_algorithms_walk_the_neighbours() -> None:
    graph = Graph()
    graph.add_edges_from([("a", "b"), ("b", "c"), ("a", "c"), ("c", "d")])
    assert nx.descendants(graph, "a") == {"b", "c", "d"}
    assert list(nx.lexicographical_topological_sort(graph)) == ["a", "b", "c", "d"]
    assert sorted(graph.subgraph(["a", "c", "d"]).edges()) == [("a", "c"), ("c", "d")]
    assert dict(graph.in_degree()) == {"a": 0, "b": 1, "c": 2, "d": 1}
    graph.add_edge("d", "a")
    assert nx.find_cycle(graph)
    twin = copy.deepcopy(graph)
    assert sorted(twin.edges()) == sorted(graph.edges()) and type(twin._pred["c"]) is Neighbours
