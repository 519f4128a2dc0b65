"""Small graphs built the way MO extension code builds them: op nodes wired through ports."""

from __future__ import annotations

import pytest

from converter.graph.graph import Graph, Node


def op_node(graph: Graph, name: str, op: str, **attrs: object) -> Node:
    graph.add_node(name, kind="op", name=name, op=op, **attrs)
    return Node(graph, name)


def chain(stage: str) -> Graph:
    """x(Parameter) -> relu -> out(Result), and relu also feeds tanh -> out2(Result)."""
    graph = Graph()
    graph.stage = stage
    x, relu, out = (op_node(graph, n, op) for n, op in [("x", "Parameter"), ("relu", "ReLU"),
                                                         ("out", "Result")])
    tanh, out2 = op_node(graph, "tanh", "Tanh"), op_node(graph, "out2", "Result")
    x.out_port(0).connect(relu.in_port(0))
    relu.out_port(0).connect(out.in_port(0))
    relu.out_port(0).connect(tanh.in_port(0))
    tanh.out_port(0).connect(out2.in_port(0))
    return graph


@pytest.fixture(params=["front", "middle"])
def graph(request) -> Graph:
    """The chain in the front stage (op -> op edges) and in the middle stage (data nodes)."""
    return chain(request.param)
