"""The last check before emission: a graph the IR cannot state truthfully is refused with one
line naming the node. Every framework's graph passes here, so what a loader misses (a
negative or absurd dimension, a tensor name on two outputs, two inputs or outputs of one
name) still never becomes an IR."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from converter.errors import ModelFormatError, ShapeInferenceError
from converter.graph.graph import Graph, Node
from converter.graph.shape import DYN

__all__ = ["MAX_ELEMENTS", "validate_graph"]

MAX_ELEMENTS = 1 << 40  # no tensor a device holds has more (4 TiB of float32)


def _dims(value: Any) -> list[int] | None:
    """A shape's dimensions as ints, negatives kept (a masked dimension is dynamic)."""
    if value is None:
        return None
    if isinstance(value, np.ma.MaskedArray):
        value = value.astype(np.int64).filled(DYN)
    return [DYN if d is None else int(d) for d in value]


def _shape_problem(shape: Any) -> str | None:
    """What is wrong with a shape no tensor can have, or None: a dimension below -1 (-1 is
    dynamic) or above MAX_ELEMENTS, or more than MAX_ELEMENTS elements."""
    dims = _dims(shape)
    if dims is None:
        return None
    limit = f"2^{MAX_ELEMENTS.bit_length() - 1}"
    for d in dims:
        if d < DYN:
            return (f"the shape {dims} has the dimension {d}; a dimension is a size >= 0 "
                    "(or -1: dynamic)")
        if d > MAX_ELEMENTS:
            return f"the shape {dims} has the dimension {d}, more than any tensor holds ({limit})"
    count = math.prod(max(d, 1) for d in dims) if all(dims) else 0
    if count > MAX_ELEMENTS:
        return f"the shape {dims} has {count} elements, more than any tensor holds ({limit})"
    return None


def _label(attrs: dict) -> str:
    return f"node '{attrs.get('name')}' ({attrs.get('type') or attrs.get('op')})"


def _unique_names(graph: Graph, op: str, what: str) -> None:
    seen: set[str] = set()
    for _, attrs in graph.nodes(data=True):
        if attrs.get("kind") == "op" and attrs.get("op") == op:
            name = str(attrs.get("name"))
            if name in seen:
                msg = (f"two model {what}s are named '{name}'; give each {what} of the model "
                       "its own name")
                raise ModelFormatError(msg)
            seen.add(name)


def _check_parameter(attrs: dict) -> None:
    problem = _shape_problem(attrs.get("shape"))
    if problem:
        msg = (f"{_label(attrs)}: {problem}; fix the input's shape in the model or give it one "
               "with --input_shape")
        raise ShapeInferenceError(msg)


def _check_outputs(graph: Graph, nid: str, attrs: dict,
                   producers: dict[str, tuple[str, int]]) -> None:
    """Each output the IR will hold: its shape, and its tensor names (on no other output)."""
    ports = Node(graph, nid)._port_view("out")
    for _, data, edge in graph.out_data(nid):
        port = edge.get("out", 0)
        d = graph.nodes[data]
        shape = d.get("shape")
        if shape is None and d.get("value") is not None:
            shape = np.shape(d["value"])
        problem = _shape_problem(shape)
        if problem:
            msg = (f"{_label(attrs)}: output {port}: {problem}; the model's attributes or "
                   "constant inputs of this node are wrong: fix them")
            raise ShapeInferenceError(msg)
        for _, name in ports.get(port, {}).get("fw_tensor_debug_info", ()):
            first = producers.setdefault(name, (nid, port))
            if first != (nid, port):
                other = f"{_label(graph.nodes[first[0]])} output {first[1]}"
                msg = (f"tensor '{name}' is written by both {other} and {_label(attrs)} output "
                       f"{port}; give each tensor of the model one producer")
                raise ModelFormatError(msg)


def validate_graph(graph: Graph) -> None:
    """Raise the one error for the first thing in graph (its bodies too) the IR cannot hold."""
    _unique_names(graph, "Parameter", "input")
    _unique_names(graph, "Result", "output")
    producers: dict[str, tuple[str, int]] = {}
    for nid, attrs in graph.nodes(data=True):
        if attrs.get("kind") != "op":
            continue
        if attrs.get("op") == "Parameter":
            _check_parameter(attrs)
        _check_outputs(graph, nid, attrs, producers)
        for body in (attrs.get("bodies") or {}).values():
            validate_graph(body.graph)
