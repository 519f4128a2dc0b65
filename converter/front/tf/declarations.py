"""Every attribute of a GraphDef (its function library's too) must hold what TensorFlow can
mean: data types of TensorFlow's DataType enum (a tensor's too) and shapes with dimensions
>= -1 (-1: unknown). A value past them is a corrupt model, refused with one line naming the
node, where reading it would turn it into something else (an unknown type became float32, a
dimension of -5 an unknown one). A tensor's own shape is checked where it is read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from converter.errors import ModelFormatError
from converter.front.tf.attrs import defined_dtype

__all__ = ["check_graph_def"]


def _problems(av: Any) -> Iterator[str]:
    """What is wrong in one AttrValue (a function's attributes, a list's items included)."""
    kind = av.WhichOneof("value")
    types = [av.type] if kind == "type" else list(av.list.type) if kind == "list" else []
    shapes = [av.shape] if kind == "shape" else list(av.list.shape) if kind == "list" else []
    tensors = [av.tensor] if kind == "tensor" else list(av.list.tensor) if kind == "list" else []
    types += [t.dtype for t in tensors]
    for code in types:
        if not defined_dtype(code):
            yield f"holds the data type {code}, which TensorFlow does not define"
    for shape in shapes:
        dims = [d.size for d in shape.dim]
        if any(d < -1 for d in dims):
            yield f"holds the shape {dims}; a dimension is a size >= 0 (or -1: unknown)"
    if kind == "func":
        for nested in av.func.attr.values():
            yield from _problems(nested)


def _nodes(graph_def: Any) -> Iterator[Any]:
    yield from graph_def.node
    for function in graph_def.library.function:
        yield from function.node_def


def check_graph_def(graph_def: Any, path: Path) -> None:
    """Raise the one error for the first attribute of graph_def TensorFlow cannot mean."""
    for pb in _nodes(graph_def):
        for key in sorted(pb.attr):
            problem = next(_problems(pb.attr[key]), None)
            if problem:
                msg = (f"{path}: node '{pb.name}' ({pb.op}): attribute '{key}' {problem} "
                       "(corrupt model): fix or re-export the model")
                raise ModelFormatError(msg)
