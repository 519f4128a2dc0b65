"""TF's SpaceToBatchND and BatchToSpaceND as MO's front passes saw them.

MO extracted them in TF's form (x, the M spatial block sizes, the [M, 2] paddings or crops) and
its front pass BatchToSpaceNormalizer rewrote that into the opset's (full-rank block shape,
begin and end). extgen's TF front writes the opset's form at once and keeps TF's constant
inputs on the node (`tf_block`, `tf_pairs`); while a legacy front pass runs before MO's
normalizer, each such node shows TF's form (`show`) and gets its own back after (`restore`),
unless the pass rewrote it, as a copy of MO's normalizer does. Meanwhile the ops that compute
only the opset's inputs are out of the graph (no pass sees them dangle, nor cleans them up).
"""

from __future__ import annotations

from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.ops.op import Op

__all__ = ["NORMALIZED", "Aside", "end_front", "put_back", "restore", "set_aside", "show"]

NORMALIZED = "batch_to_space_normalized"  # graph.graph key: MO's normalizer has run
_SHOWN = "_tf_space_batch_shown"  # graph.graph key: the nodes showing TF's form during a pass
_OPS = ("SpaceToBatch", "BatchToSpace")

# the ops set aside (id -> attributes) and the edges into and among them
Aside = tuple[dict[str, dict], list[tuple[str, str, dict]]]
# node, the sources of its inputs 1-3, the Consts shown on inputs 1 and 2, what is set aside
Shown = tuple[Node, list[Port], list[Node], Aside]


def set_aside(graph: Graph, sources: list[Port]) -> Aside:
    """Take out of the graph the ops upstream of sources that feed nothing else (the node's
    inputs 1-3 they fed are disconnected by now)."""
    inside = set()
    todo = [s.node.id for s in sources]
    while todo:  # every op upstream of the sources
        nid = todo.pop()
        if nid not in inside:
            inside.add(nid)
            todo += [u for u, _, _ in graph.in_data(nid)]
    changed = True
    while changed:  # keep only those whose every consumer is inside
        shared = {nid for nid in inside
                  if any(v not in inside for _, v, _ in graph.out_data(nid))}
        inside -= shared
        changed = bool(shared)
    attrs = {nid: dict(graph._node[nid]) for nid in inside}
    # every edge into them (those among them too): nothing outside reads them
    edges = [(u, v, dict(a)) for nid in inside for u, v, a in graph.in_data(nid)]
    graph.remove_nodes_from(list(inside))
    return attrs, edges


def put_back(graph: Graph, aside: Aside) -> None:
    """The nodes and edges set aside, in the graph again."""
    attrs, edges = aside
    for nid, node_attrs in attrs.items():
        graph.add_node(nid, **node_attrs)
    for u, v, edge in edges:
        graph.add_edge(u, v, **edge)


def show(graph: Graph) -> None:
    if graph.graph.get("fw") != "tf" or graph.graph.get(NORMALIZED):
        return  # (it runs before every legacy front pass: other frameworks skip the walk)
    shown = []
    nodes = [node for node in graph.get_op_nodes()
             if node.soft_get("op") in _OPS and node.soft_get("tf_pairs", None) is not None]
    for node in nodes:  # (setting ops aside removes nodes: the list is made first)
        if not graph.has_node(node.id):
            continue
        sources = [node.in_port(i).get_source() for i in (1, 2, 3)]
        for i in (1, 2, 3):
            node.in_port(i).disconnect()
        aside = set_aside(graph, sources)
        consts = []
        for i, key in ((1, "tf_block"), (2, "tf_pairs")):
            const = Op.builtin_ops["Const"](graph).create_node(
                attrs={"name": f"{node.soft_get('name')}/{key}", "value": node[key]})
            const.out_port(0).connect(node.in_port(i))
            consts.append(const)
        node.delete_input_port(3)
        shown.append((node, sources, consts, aside))
    graph.graph[_SHOWN] = shown


def _untouched(node: Node, consts: list[Node]) -> bool:
    return (3 not in node.in_ports() or node.in_port(3).disconnected()) and all(
        not node.in_port(i).disconnected() and node.in_port(i).get_source().node.id == c.id
        for i, c in ((1, consts[0]), (2, consts[1])))


def restore(graph: Graph) -> None:
    """The opset's inputs again on each node the pass left in TF's form; a node it rewrote
    keeps what the pass made."""
    for node, sources, consts, aside in graph.graph.pop(_SHOWN, []):
        if not graph.has_node(node.id):
            continue
        if _untouched(node, consts):
            put_back(graph, aside)
            node.add_input_port(3, skip_if_exist=True)
            for i, source in zip((1, 2, 3), sources):
                node.in_port(i).disconnect()
                source.connect(node.in_port(i))
        else:
            del node["tf_block"], node["tf_pairs"]
        for const in consts:
            if graph.has_node(const.id) and not const.out_port(0).get_destinations():
                graph.remove_node(const.id)


def end_front(graph: Graph) -> None:
    """The front phase ends inside a pass (a copy of MO's CreateTensorNodes): the opset's
    form again, and from then on."""
    restore(graph)
    graph.graph[NORMALIZED] = True
