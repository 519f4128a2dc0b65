"""Front-stage graph pieces for Kaldi: the input Parameter, one framework node per component
(its `component` the parsed Component, its op the component type), opset ops built directly
(ParallelComponent's split and concat, nnet3's descriptors), and the Results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from converter.front.kaldi.component import Component
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.ops.op import Op

__all__ = ["GraphBuilder"]


class GraphBuilder:
    """Adds nodes to one graph, naming them uniquely."""

    def __init__(self, name: str) -> None:
        self.graph = Graph()
        self.graph.graph.update(fw="kaldi", layout="NCHW", feature_dim=1, name=name)
        self.graph.graph["input_order"] = []
        self.graph.graph["output_order"] = []

    def parameter(self, name: str, dim: int) -> Port:
        node = Op.builtin_ops["Parameter"](self.graph).create_node(attrs={
            "name": name, "shape": (1, int(dim)), "element_type": np.dtype(np.float32)})
        node.out_port(0).add_tensor_names([name])
        self.graph.graph["input_order"].append(name)
        return node.out_port(0)

    def component(self, comp: Component, source: Port, name: str | None = None) -> Port:
        name = name or comp.name
        node_id = self.graph.unique_id(name)
        self.graph.add_node(node_id, kind="op", op=comp.type, name=name, component=comp,
                            pb=comp, in_ports_count=1, out_ports_count=1)
        node = Node(self.graph, node_id)
        node.update_node()
        source.connect(node.in_port(0))
        node.out_port(0).add_tensor_names([name])
        return node.out_port(0)

    def op(self, type_name: str, inputs: Sequence[Port | np.ndarray], name: str,
           **attrs: Any) -> Node:
        node = Op.builtin_ops[type_name](self.graph).create_node(
            attrs={"name": self.graph.unique_id(name), **attrs})
        for i, src in enumerate(inputs):
            if not isinstance(src, Port):
                src = self.const(src, f"{name}/value_{i}")
            src.connect(node.in_port(i))
        return node

    def const(self, value: Any, name: str) -> Port:
        node = Op.builtin_ops["Const"](self.graph).create_node(
            attrs={"name": self.graph.unique_id(name), "value": np.asarray(value)})
        return node.out_port(0)

    def result(self, source: Port, name: str) -> None:
        source.add_tensor_names([name])
        result = Op.builtin_ops["Result"](self.graph).create_node(
            attrs={"name": f"{name}/sink_port_0"})
        source.connect(result.in_port(0))
        self.graph.graph["output_order"].append(name)
