"""ONNX sub-graphs (If branches, Loop and Scan bodies) as the body Graphs of sub-graph ops.

A sub-graph reads outer values by name. The loader feeds those (`captures`) into the framework
node after its inputs; here a captured Const is copied into the body and any other captured
value becomes a body Parameter fed by an extra input of the op (`OuterInputs`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx

from converter.back.clamp_bounds import clamps_to_attributes
from converter.front.extractor import extract_nodes
from converter.front.onnx.loader import add_op, fill_graph, implicit_inputs, tensor_value
from converter.front.onnx.translator import REGISTRY, OnnxNode
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.ops.control._body import PortRule

__all__ = [
    "OnnxBody", "OuterInputs", "axes_op", "body_graph", "build_body", "insert_after",
    "insert_before",
]

_FACTS = ("fw", "layout", "feature_dim", "opsets", "fw_opset_version")


class OuterInputs:
    """The op's inputs: the explicit ones, then each captured outer value once (on an input of
    its own even when an explicit input has the same source: OpenVINO maps an input port to one
    body Parameter)."""

    def __init__(self, ports: list[Port]) -> None:
        self.ports, self.explicit = list(ports), len(ports)

    def index(self, port: Port) -> int:
        if port not in self.ports[self.explicit:]:
            self.ports.append(port)
        return self.ports.index(port, self.explicit)


@dataclass
class OnnxBody:
    graph: Graph
    params: list[str]  # Parameter node ids of the sub-graph's inputs, in order
    results: list[str]  # Result node ids of its outputs, in order
    captured: list[PortRule] = field(default_factory=list)  # outer values fed as inputs


def body_graph(n: OnnxNode, name: str) -> Graph:
    """An empty body Graph with the model facts of n's graph."""
    graph = Graph()
    graph.graph.update({k: n.graph.graph[k] for k in _FACTS if k in n.graph.graph})
    graph.graph["name"] = f"{n.name}/{name}"
    return graph


def build_body(n: OnnxNode, g: onnx.GraphProto, outer: OuterInputs) -> OnnxBody:
    """g as a translated body Graph (its own sub-graphs translated too)."""
    graph = body_graph(n, g.name or "body")
    producers: dict[str, tuple[Node, int]] = {}
    captured = []
    for name in implicit_inputs(g):
        src = n.node.in_port(len(n.pb.input) + n.node["captures"].index(name)).get_source()
        if src.node.soft_get("op") == "Const":
            node = add_op(graph, "Const", name, value=np.asarray(src.node.value))
        else:
            node = add_op(graph, "Parameter", name, shape=None, element_type=np.dtype(np.float32))
            captured.append(PortRule(outer.index(src), node.id))
        producers[name] = (node, 0)
    params, results = fill_graph(graph, g, producers, tensor_value)
    extract_nodes(graph, REGISTRY)  # what nothing handles is reported with the outer graph's
    clamps_to_attributes(graph)
    graph.clean_up()
    return OnnxBody(graph, params, results, captured)


def axes_op(graph: Graph, op: str, name: str, axis: int) -> Node:
    """An op (Squeeze/Unsqueeze) with its axes input set to [axis]."""
    node = add_op(graph, op, name)
    axes = add_op(graph, "Const", f"{name}/axes", value=np.array([axis], np.int64))
    axes.out_port(0).connect(node.in_port(1))
    return node


def insert_after(graph: Graph, param: str, op: str, axis: int) -> None:
    """Parameter `param` feeds what it fed through op (Squeeze/Unsqueeze) on axis."""
    node = Node(graph, param)
    new = axes_op(graph, op, f"{node.soft_get('name')}/{op}", axis)
    node.out_port(0).get_connection().insert_node(new)


def insert_before(graph: Graph, result: str, op: str, axis: int) -> None:
    """Result `result` takes its value through op (Squeeze/Unsqueeze) on axis."""
    node = Node(graph, result)
    new = axes_op(graph, op, f"{node.soft_get('name')}/{op}", axis)
    node.in_port(0).get_connection().insert_node(new)
