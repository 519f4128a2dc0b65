"""extgen's Interpolate-11 as MO's Interpolate-4, while a legacy middle or back pass runs.

MO's resizes (ONNX Resize, TF ResizeBilinear, ...) were Interpolate-4: the data, the sizes, the
scales and the axes on inputs 0-3, sizes and scales both given whichever
`shape_calculation_mode` counted (MO's InterpolateSequenceToInterpolate reads both). extgen
writes ovc's Interpolate-11: the data, the sizes or the scales, the axes. While a pass runs,
each such node of static shapes shows MO's version and inputs, with the input extgen lacks (and
the axes, where it has none) a Const computed from the shapes; after it the node has its own
form again from what then feeds it, unless the pass replaced it. A pass that rewired or changed
a computed Const stops with one line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from converter.errors import ExtensionError
from converter.graph.graph import Graph, Node
from converter.legacy.front_ops import class_location
from converter.legacy.mo_ops._base import move_inputs

__all__ = ["restore", "show"]


@dataclass
class Shown:
    node: Node
    by_sizes: bool
    made: dict[int, Node]  # MO's port -> the Const computed for it
    values: dict[int, np.ndarray]  # ... and its value
    own: tuple[np.ndarray, str] | None  # extgen's input 1 over all axes (value, Const name)


def _static(shape: object) -> np.ndarray | None:
    if shape is None or np.ma.is_masked(shape):
        return None
    return np.asarray(shape, np.int64)


def _axes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The axes of an Interpolate without them (ONNX's Resize): the spatial ones from 2, as
    MO's ONNX Resize lowering gave, where the batch and channels keep their size."""
    return np.arange(2 if len(x) > 2 and np.all(x[:2] == y[:2]) else 0, len(x))


def show(graph: Graph) -> list[Shown]:
    from converter.legacy.build import const_into  # (build reads the pass runner, which reads us)

    shown = []
    for node in graph.get_op_nodes(type="Interpolate"):
        x, y = (_static(p.data.get_shape()) for p in (node.in_port(0), node.out_port(0)))
        if node.soft_get("version") != "opset11" or x is None or y is None:
            continue
        has_axes = node.is_in_port_connected(2)
        axes = node.in_port(2).data.get_value() if has_axes else _axes(x, y)
        own = None if has_axes else node.in_port(1).data.get_value()
        if axes is None or (not has_axes and own is None):
            continue
        axes = np.asarray(axes, np.int64).reshape(-1) % len(x)
        if np.any(x[axes] == 0):
            continue
        by_sizes = node.soft_get("shape_calculation_mode") == "sizes"
        name = node.soft_get("name", node.id)
        values = {1: y[axes], 2: (y[axes] / x[axes]).astype(np.float32), 3: axes}
        if has_axes:
            move_inputs(node, [0, 1, None, 2] if by_sizes else [0, None, 1, 2])
            values = {2 if by_sizes else 1: values[2 if by_sizes else 1]}
        else:  # (extgen's sizes or scales are over all axes: its Const is out meanwhile)
            source = node.in_port(1).get_source().node
            own = (np.asarray(own), source.soft_get("name", source.id))
            node.in_port(1).disconnect()
            _drop(graph, source)
        made = {port: const_into(node, port, value, f"{name}/mo_input_{port}")
                for port, value in values.items()}
        node["version"] = "opset4"
        kept = {port: np.array(value) for port, value in values.items()}  # (copies)
        shown.append(Shown(node, by_sizes, made, kept, own))
    return shown


def _drop(graph: Graph, const: Node) -> None:
    """A Const and its tensor, when nothing reads it."""
    if const.soft_get("op") == "Const" and not const.out_port(0).get_destinations():
        graph.remove_nodes_from([const.out_port(0).data_node().id, const.id])


def restore(graph: Graph, shown: list[Shown], pass_cls: type | None = None) -> None:
    from converter.legacy.build import const_into

    for done in shown:
        node = done.node
        if not graph.has_node(node.id) or node.soft_get("version") != "opset4":
            continue  # (replaced, or made another version)
        for port, const in done.made.items():
            source = node.in_port(port).get_source() if node.is_in_port_connected(port) else None
            if source is None or source.node.id != const.id or not all(
                    np.array_equal(v, done.values[port])
                    for v in (const.soft_get("value"), node.in_port(port).data.get_value())):
                raise ExtensionError(
                    f"{class_location(pass_cls)}the pass changed input {port} of MO's "
                    f"Interpolate-4 node '{node.soft_get('name', node.id)}', which extgen "
                    "computes from the shapes in its Interpolate-11: replace the node instead")
            node.in_port(port).disconnect()
            _drop(graph, const)
        if done.own is None:
            move_inputs(node, [0, 1 if done.by_sizes else 2, 3])
        else:
            move_inputs(node, [0])
            const_into(node, 1, done.own[0], done.own[1])
        node["version"] = "opset11"
