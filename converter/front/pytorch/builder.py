"""The front-stage graph of a PyTorch model, whichever form it came in: Parameters, Consts,
one framework node per ATen (or custom) op call, and Results.

A call's arguments are its node's `pb` (its framework record): (schema name, value) pairs in
schema order. A tensor argument is an `Input`, the index of the node's in port it arrives on
(tensors are numbered in the order they appear, lists included); anything else is a plain
Python value (a dtype as a numpy dtype)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from converter.graph.graph import Graph, Node
from converter.ops.op import Op

__all__ = ["GraphBuilder", "Input", "Number", "Source", "numpy_dtype"]

Source = tuple[Node, int]  # a tensor: the node and output port that produce it

# torch.dtype names -> numpy (bfloat16 through ml_dtypes, as the IR keeps it)
_DTYPES = {
    "float32": np.float32, "float": np.float32, "float64": np.float64, "double": np.float64,
    "float16": np.float16, "half": np.float16, "int64": np.int64, "long": np.int64,
    "int32": np.int32, "int": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8,
    "bool": np.bool_,
}


def numpy_dtype(dtype: Any) -> np.dtype:
    """A torch.dtype (or its name) as numpy's."""
    name = str(dtype).removeprefix("torch.")
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(_DTYPES[name])


@dataclass(frozen=True)
class Input:
    """A tensor argument: the call node's in port it arrives on; `number`: a Python number
    computed at run time (a dynamic size), which takes the other operand's type as torch
    promotes."""

    port: int
    number: bool = False


@dataclass(frozen=True)
class Number:
    """What a loader passes for a number computed at run time: its Source."""

    source: Source


class GraphBuilder:
    """Adds a PyTorch model's nodes to one graph, naming them uniquely."""

    def __init__(self, name: str) -> None:
        self.graph = Graph()
        self.graph.graph.update(fw="pytorch", layout="NCHW", feature_dim=1, name=name,
                                input_order=[], output_order=[])

    def _add(self, op: str, name: str, **attrs: Any) -> Node:
        return Op.builtin_ops[op](self.graph).create_node(attrs={"name": name, **attrs})

    def parameter(self, name: str, shape: Sequence[int] | None, dtype: np.dtype) -> Source:
        node = self._add("Parameter", name, element_type=np.dtype(dtype),
                         shape=None if shape is None else tuple(int(d) for d in shape))
        node.out_port(0).add_tensor_names([name])
        self.graph.graph["input_order"].append(name)
        return node, 0

    def constant(self, name: str, value: np.ndarray) -> Source:
        node = self._add("Const", self.graph.unique_id(name), value=value)
        node.out_port(0).add_tensor_names([node.soft_get("name")])
        return node, 0

    def call(self, op: str, name: str, args: Sequence[tuple[str, Any]], outputs: int) -> Node:
        """A framework node for one op call; Sources among args (lists too) become Inputs."""
        sources: list[Source] = []

        def bind(value: Any) -> Any:
            if isinstance(value, Number):
                sources.append(value.source)
                return Input(len(sources) - 1, number=True)
            if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], Node):
                sources.append(value)
                return Input(len(sources) - 1)
            if isinstance(value, (list, tuple)):
                return [bind(v) for v in value]
            return value

        bound = tuple((key, bind(value)) for key, value in args)
        node_id = self.graph.unique_id(name)
        self.graph.add_node(node_id, kind="op", op=op, name=node_id, pb=bound,
                            in_ports_count=len(sources), out_ports_count=outputs)
        node = Node(self.graph, node_id)
        node.update_node()
        for port, (src, out) in enumerate(sources):
            src.out_port(out).connect(node.in_port(port))
        for port in range(outputs):
            node.out_port(port).add_tensor_names([node_id if port == 0 else f"{node_id}:{port}"])
        return node

    def result(self, source: Source) -> None:
        """A model output, named by its tensor's (first) name."""
        src, out = source
        name = src.out_port(out).get_tensor_names()[0]
        result = self._add("Result", self.graph.unique_id(f"{name}/sink_port_0"))
        src.out_port(out).connect(result.in_port(0))
        self.graph.graph["output_order"].append(name)
