"""The opset versions MO 2023.3 gave ops that extgen writes in a newer one, while a legacy pass
runs.

MO's op classes made every Pad `opset1`, a TopK `opset3` (with a third input port, never
connected), a ScatterElementsUpdate `opset3`, a ScatterNDUpdate `opset4` and a ShuffleChannels
`opset3`; its TF extractor gave a ConcatV2 no version, and its Slice (ONNX's: axes before steps)
none and no type until the middle pass SliceConverter. extgen writes the newer opset ovc writes
(Pad-12, TopK-11 with ONNX's stable sort, Slice-8, ...). A pass sees MO's version and ports
(`dict(type='TopK', version='opset3')` matches as in MO) wherever MO had that node (not a
scatter with a reduction, which MO's version lacked), and the node has extgen's again after
it, unless the pass set another version.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from converter.graph.graph import Graph, Node
from converter.legacy.front_ops import drop_unused_ports

__all__ = ["restore", "show"]


def _always(node: Node) -> bool:
    return True


def _tf_concat(node: Node) -> bool:
    return node.soft_get("op") == "ConcatV2"  # (shown in MO's name: converter.front.mo_names)


def _no_reduction(node: Node) -> bool:
    return node.soft_get("reduction", "none") in ("none", None)


def _before_back(node: Node) -> bool:
    return node.graph.stage != "back"


@dataclass(frozen=True)
class _Mo:
    version: str | None
    fits: Callable[[Node], bool] = _always
    ports: int = 0  # input ports MO's node had (0: as extgen's)
    swaps: tuple[int, int] | None = None  # two inputs MO's node had the other way round
    typed: bool = True  # False: MO's node had no type


_MO_VERSIONS: dict[tuple[str, str], _Mo] = {  # (type, extgen's version) -> MO's
    ("Pad", "opset12"): _Mo("opset1"),
    ("TopK", "opset11"): _Mo("opset3", ports=3),
    ("ScatterElementsUpdate", "opset12"): _Mo("opset3", _no_reduction),
    ("ScatterNDUpdate", "opset15"): _Mo("opset4", _no_reduction),
    ("ShuffleChannels", "opset1"): _Mo("opset3"),
    ("Concat", "opset1"): _Mo(None, _tf_concat),  # MO's TF extractor gave it none
    ("Slice", "opset8"): _Mo(None, _before_back, swaps=(3, 4), typed=False),
}


@dataclass
class Shown:
    node: Node
    own: str  # extgen's version
    mo: str | None
    added: list[int]  # ports shown unconnected
    swaps: tuple[int, int] | None = None
    kind: str | None = None  # extgen's type, where MO's node had none


def show(graph: Graph) -> list[Shown]:
    """Each such node takes MO's version and ports; returns what restore() needs."""
    shown = []
    for node in graph.get_op_nodes():
        own = node.soft_get("version", None)
        mo = _MO_VERSIONS.get((node.soft_get("type", None), own))
        if mo is None or not mo.fits(node):
            continue
        added = [i for i in range(mo.ports) if i not in node.in_ports()]
        for i in added:
            node.add_input_port(i)
        node["version"] = mo.version
        if mo.swaps:
            _swap(node, *mo.swaps)
        kind = None if mo.typed else node["type"]
        if kind:
            node["type"] = None
        shown.append(Shown(node, own, mo.version, added, mo.swaps, kind))
    return shown


def _swap(node: Node, a: int, b: int) -> None:
    """Inputs a and b change places (edge by edge: a pass may have left an input whose tensor
    has no producer yet, as MO's Op.create_input_data_node makes them)."""
    for i in (a, b):
        node.add_input_port(i, skip_if_exist=True)
    graph = node.graph
    for u, _, key, edge in list(graph.in_edges(node.id, keys=True, data=True)):
        if edge.get("in") in (a, b):
            graph.own_edge_attrs(u, node.id, key)["in"] = b if edge["in"] == a else a


def restore(graph: Graph, shown: list[Shown], pass_cls: type | None = None) -> None:
    """extgen's version again on each shown node that still has MO's; the ports it was shown
    go (pass_cls, had it connected one, is named in the one line the conversion stops with)."""
    for done in shown:
        node = done.node
        if not graph.has_node(node.id):
            continue
        drop_unused_ports(node, done.added, pass_cls,
                          f"{node.soft_get('type')} node '{node.soft_get('name', node.id)}', "
                          "which MO's op had unused and extgen's lacks")
        if node.soft_get("version", None) != done.mo or (
                done.kind and node.soft_get("type", None) is not None):
            continue  # (the pass made it another op)
        node["version"] = done.own
        if done.kind:
            node["type"] = done.kind
        if done.swaps:
            _swap(node, *done.swaps)
