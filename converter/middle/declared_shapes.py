"""Shapes a model declares for its tensors (ONNX value_info and graph outputs): partial
inference checks each node's outputs against them, so an op whose inference contradicts the
model (a scaffolded extension copying input 0's shape, say) stops the conversion at that node.
A dynamic or symbolic declared dim, and a dim inference leaves dynamic, agree with anything."""

from __future__ import annotations

from converter.graph.graph import Graph, Node
from converter.graph.shape import Shape, as_shape
from converter.ops.op import Op
from converter.ops.shape_rules import show

__all__ = ["KEY", "contradicts", "declared_problem", "declared_shapes"]

KEY = "declared_shapes"  # graph.graph[KEY]: tensor name -> declared Shape


def declared_shapes(graph: Graph) -> dict[str, Shape]:
    return graph.graph.get(KEY) or {}


def contradicts(declared: Shape, inferred: Shape | None) -> bool:
    """A different rank, or a static dim against a different static dim."""
    if inferred is None:
        return False
    return len(declared) != len(inferred) or any(
        d != i for d, i in zip(declared, inferred) if d >= 0 and i >= 0)


def _hint(node: Node) -> str:
    cls = Op.of_node(node)
    if cls is not None and cls.__module__.startswith("converter."):
        return ""
    return "; the extension's infer_shapes (or infer) must give the declared shape"


def declared_problem(node: Node) -> str | None:
    """The first output of node whose inferred shape contradicts a declared one, as a message."""
    declared = declared_shapes(node.graph)
    if not declared:
        return None
    for port in node.out_ports().values():
        names = port.get_tensor_names()
        inferred = as_shape(port.data.get_shape()) if names else None
        for name in names:
            want = declared.get(name)
            if want is not None and contradicts(want, inferred):
                return (f"inference gives output {port.idx} ('{name}') the shape "
                        f"{show(inferred)} but the model declares {show(want)}{_hint(node)}")
    return None
