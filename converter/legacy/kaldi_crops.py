"""Kaldi's dim-range nodes as MO's front and middle passes saw them: Crop ops.

MO's Kaldi loader read an nnet3 dim-range-node as a `Crop` (no type; `axis`, `offset` and
`dim` attributes; two input ports, the first connected) and its back pass CropToStridedSlice
made it a StridedSlice. extgen's Kaldi front writes that StridedSlice at once and marks it
(`MO_CROP`: the offset and dim); while a legacy front or middle pass runs, each marked node
shows MO's Crop (`show`), its begin, end and stride Consts out of the graph, and gets its own
form back after (`restore`), its bounds following any change the pass made to offset or dim.
A node the pass replaced or rewrote stays as the pass left it.
"""

from __future__ import annotations

import numpy as np

from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.legacy.tf_space_batch import Aside, put_back
from converter.ops.movement.strided_slice import MO_CROP

__all__ = ["restore", "show"]
_SHOWN = "_kaldi_crops_shown"  # graph.graph key: what show() did, for restore()
_OWN = ("op", "type", "version", "infer")

# the node, its own op/type/version, its bounds' sources, what was set aside
Shown = tuple[Node, dict, list[Port], list[Aside]]


def _set_aside(graph: Graph, source: Port) -> Aside:
    """The Const feeding only the shown node (and its tensor, in the middle phase) out of the
    graph, with the edges among them."""
    ids = [source.node.id]
    if source.node.soft_get("op") != "Const" or source.get_destinations():
        return {}, []
    ids += [v for _, v, _ in graph.out_data(source.node.id)
            if graph._node[v].get("kind") == "data"]
    attrs = {nid: dict(graph._node[nid]) for nid in ids}
    edges = [(u, v, dict(a)) for nid in ids[1:] for u, v, a in graph.in_data(nid)]
    graph.remove_nodes_from(ids)
    return attrs, edges


def show(graph: Graph) -> None:
    if graph.graph.get("fw") != "kaldi":
        return  # (it runs before every legacy pass: other frameworks skip the walk)
    shown: list[Shown] = []
    for node in graph.get_op_nodes(op="StridedSlice"):
        if node.soft_get(MO_CROP, None) is None:
            continue
        sources = [node.in_port(i).get_source() for i in (1, 2, 3)]
        for i in (1, 2, 3):
            node.in_port(i).disconnect()
        aside = [_set_aside(graph, s) for s in sources]
        node.delete_input_port(2)
        node.delete_input_port(3)
        own = {key: node.soft_get(key, None) for key in _OWN}
        offset, dim = node[MO_CROP]
        node.attrs().update(op="Crop", type=None, version=None, axis=np.array([1]),
                            offset=np.array([offset]), dim=np.array([dim]), layout="NCHW",
                            infer=_crop_infer)
        shown.append((node, own, sources, aside))
    graph.graph[_SHOWN] = shown


def _crop_infer(node: Node) -> None:
    """MO's Crop of `dim` features from `offset` (a pass may infer the graph meanwhile)."""
    source = node.in_port(0).data
    offset, dim = int(node["offset"][0]), int(node["dim"][0])
    shape = source.get_shape()
    if shape is not None:
        node.out_port(0).data.set_shape([*shape[:1], dim, *shape[2:]])
    value = source.get_value()
    if value is not None:
        node.out_port(0).data.set_value(value[:, offset:offset + dim])


def _untouched(node: Node) -> bool:
    return (node.soft_get("op") == "Crop" and not node.in_port(0).disconnected()
            and all(i not in node.in_ports() or node.in_port(i).disconnected()
                    for i in (1, 2, 3)))


def restore(graph: Graph) -> None:
    """Each node the pass left a Crop is the StridedSlice again, bounds from its offset and
    dim; one it rewrote keeps what the pass made."""
    for node, own, sources, aside in graph.graph.pop(_SHOWN, []):
        if not graph.has_node(node.id):
            continue
        shown = {key: node.attrs().pop(key, None) for key in ("axis", "offset", "dim", "layout")}
        if not _untouched(node):
            del node[MO_CROP]
            continue
        for part, source, i in zip(aside, sources, (1, 2, 3)):
            put_back(graph, part)
            source.connect(node.in_port(i))
        node.attrs().update(own)
        offset, dim = int(shown["offset"][0]), int(shown["dim"][0])
        if (offset, dim) != tuple(node[MO_CROP]):  # the pass moved the window
            node[MO_CROP] = (offset, dim)
            for i, value in ((1, offset), (2, offset + dim)):
                node.in_port(i).data.set_value(np.array([0, value]))
