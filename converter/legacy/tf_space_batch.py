"""TF's SpaceToBatchND and BatchToSpaceND as MO's front passes saw them.

MO extracted them in TF's form (x, the M spatial block sizes, the [M, 2] paddings or crops) and
its front pass BatchToSpaceNormalizer rewrote that into the opset's (full-rank block shape,
begin and end). extgen's TF front writes the opset's form at once and keeps TF's constant
inputs on the node (`tf_block`, `tf_pairs`); while a legacy front pass runs before MO's
normalizer, each such node shows TF's form (`show`) and gets its own back after (`restore`),
unless the pass rewrote it, as a copy of MO's normalizer does. The opset's inputs are held
aside meanwhile (a pass's clean-up keeps them).
"""

from __future__ import annotations

from converter.graph.graph import HELD, Graph, Node
from converter.graph.port import Port
from converter.ops.op import Op

__all__ = ["NORMALIZED", "restore", "show"]

NORMALIZED = "batch_to_space_normalized"  # graph.graph key: MO's normalizer has run
_OPS = ("SpaceToBatch", "BatchToSpace")

# node, the sources of its inputs 1-3, the Consts shown on inputs 1 and 2
Shown = tuple[Node, list[Port], list[Node]]


def show(graph: Graph) -> list[Shown]:
    if graph.graph.get(NORMALIZED):
        return []
    shown = []
    for node in graph.get_op_nodes():
        if node.soft_get("op") not in _OPS or node.soft_get("tf_pairs", None) is None:
            continue
        sources = [node.in_port(i).get_source() for i in (1, 2, 3)]
        graph.graph.setdefault(HELD, set()).update(s.node.id for s in sources)
        consts = []
        for i, key in ((1, "tf_block"), (2, "tf_pairs")):
            const = Op.builtin_ops["Const"](graph).create_node(
                attrs={"name": f"{node.soft_get('name')}/{key}", "value": node[key]})
            node.in_port(i).disconnect()
            const.out_port(0).connect(node.in_port(i))
            consts.append(const)
        node.in_port(3).disconnect()
        node.delete_input_port(3)
        shown.append((node, sources, consts))
    return shown


def _untouched(node: Node, consts: list[Node]) -> bool:
    return (3 not in node.in_ports() or node.in_port(3).disconnected()) and all(
        not node.in_port(i).disconnected() and node.in_port(i).get_source().node.id == c.id
        for i, c in ((1, consts[0]), (2, consts[1])))


def restore(graph: Graph, shown: list[Shown]) -> None:
    """The opset's inputs again on each node the pass left in TF's form; a node it rewrote
    keeps what the pass made."""
    for node, sources, consts in shown:
        graph.graph.get(HELD, set()).difference_update(s.node.id for s in sources)
        if not graph.has_node(node.id):
            continue
        if _untouched(node, consts):
            node.add_input_port(3, skip_if_exist=True)
            for i, source in zip((1, 2, 3), sources):
                node.in_port(i).disconnect()
                source.connect(node.in_port(i))
        else:
            del node["tf_block"], node["tf_pairs"]
        for const in consts:
            if graph.has_node(const.id) and not const.out_port(0).get_destinations():
                graph.remove_node(const.id)
