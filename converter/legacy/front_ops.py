"""MO's front ops (converter.front.mo_front) as legacy front passes saw them.

While a legacy pass runs in the front phase, each node marked `mo_front` shows MO's op: its op,
type and attributes, and MO's inputs. Inputs MO's node did not have are out of the graph with
the ops that compute only them; ports MO's node had unconnected are there, unconnected. A node
that absorbs its producer (an Add of a bias after a MatMul or convolution, which MO held as one
FullyConnected, Conv or Gemm node) takes the producer's inputs and then its own second one, and
the producer is out of the graph. After the pass the node gets its own form back from whatever
now feeds those inputs (`restore`), unless the pass replaced it (a copy of MO's own lowering
does): then it stays as the pass left it. A pass that changed a shown attribute on a node it
kept stops with one line, as extgen cannot carry that back.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from converter.errors import ExtensionError
from converter.front.mo_front import MO_FRONT
from converter.graph.graph import Graph, Node
from converter.graph.port import Port
from converter.legacy.tf_space_batch import Aside, put_back, set_aside
from converter.ops.op import Op
from converter.passes import PASSED_ANCHORS

__all__ = ["class_location", "drop_unused_ports", "restore", "show"]
_SHOWN = "_mo_front_shown"  # graph.graph key: what show() did, for restore()
_OWN = ("op", "type", "version", "infer")


@dataclass
class _Shown:
    node: Node
    own: dict[str, Any]
    aside: Aside = ({}, [])  # what is out of the graph meanwhile
    sources: dict[int, Port | None] = field(default_factory=dict)  # inputs MO's op lacked
    producer: str | None = None  # the absorbed producer's id
    inputs: int = 0  # the producer's input count
    added: list[int] = field(default_factory=list)  # ports shown unconnected (MO's node had)
    saved: dict[str, Any] = field(default_factory=dict)  # its own values of the shown attrs
    consts: list[tuple[int, Node]] = field(default_factory=list)  # MO's Const inputs, shown
    remapped: dict[int, Port] = field(default_factory=dict)  # own port -> source (`ports`)
    unwrapped: list[tuple[int, str]] = field(default_factory=list)  # port, op set aside
    unwrap_aside: Aside = ({}, [])


def _absorb(graph: Graph, node: Node, kinds: tuple[str, ...]) -> _Shown | None:
    """node = Add(producer(...), bias) as one node of inputs (producer's..., bias)."""
    source = node.in_port(0).get_source()
    producer = source.node
    if (producer.soft_get("type") not in kinds or len(source.get_destinations()) != 1
            or node.in_port(1).disconnected()):
        return None
    ports = sorted(i for i in producer.in_ports() if not producer.in_port(i).disconnected())
    inputs = [producer.in_port(i).get_source() for i in ports] + [node.in_port(1).get_source()]
    for port in (node.in_port(0), node.in_port(1), *(producer.in_port(i) for i in ports)):
        port.disconnect()
    aside = set_aside(graph, [source])
    for i, port in enumerate(inputs):
        node.add_input_port(i, skip_if_exist=True)
        port.connect(node.in_port(i))
    own = {key: node.soft_get(key, None) for key in _OWN}
    return _Shown(node, own, aside, producer=producer.id, inputs=len(ports))


def _drop_extra(graph: Graph, node: Node, inputs: int) -> _Shown:
    extra = [i for i in sorted(node.in_ports()) if i >= inputs]
    sources = {i: None if node.in_port(i).disconnected() else node.in_port(i).get_source()
               for i in extra}
    for i in extra:
        node.in_port(i).disconnect()
    aside = set_aside(graph, [source for source in sources.values() if source is not None])
    for i in extra:
        node.delete_input_port(i)
    own = {key: node.soft_get(key, None) for key in _OWN}
    return _Shown(node, own, aside, sources)


def _remap(graph: Graph, node: Node, ports: dict[int, int]) -> _Shown:
    """MO's inputs from extgen's (ports: MO's port -> extgen's); the others set aside."""
    sources = _connected(node)
    dropped = [i for i in sources if i not in ports.values()]
    for i in dropped:  # (first: what still feeds MO's inputs stays in the graph)
        node.in_port(i).disconnect()
    aside = set_aside(graph, [sources[i] for i in dropped])
    for i in list(node.in_ports()):
        node.in_port(i).disconnect()
        node.delete_input_port(i)
    for mo, own in ports.items():
        node.add_input_port(mo)
        sources[own].connect(node.in_port(mo))
    own_attrs = {key: node.soft_get(key, None) for key in _OWN}
    return _Shown(node, own_attrs, aside, remapped=sources)


def _unmap(graph: Graph, done: _Shown, ports: dict[int, int], lenient: bool = False) -> None:
    """extgen's inputs again: those MO's node had from what now feeds them (lenient: a node
    the pass replaced may have lost them)."""
    node = done.node
    now = _connected(node)
    if sorted(now) != sorted(ports) and not lenient:
        raise ExtensionError(f"MO's {node.op} node '{node.soft_get('name', node.id)}' lost an "
                             "input in the pass: replace the node instead")
    for i in list(node.in_ports()):
        node.in_port(i).disconnect()
        node.delete_input_port(i)
    put_back(graph, done.aside)
    sources = {**{own: src for own, src in done.remapped.items() if own not in ports.values()},
               **{own: now[mo] for mo, own in ports.items() if mo in now}}
    for i, source in sorted(sources.items()):
        node.add_input_port(i)
        source.connect(node.in_port(i))


def _unwrap(graph: Graph, done: _Shown, kind: str) -> None:
    """Each input fed (alone) by an op of type kind: fed by that op's input 0 instead, the op
    set aside."""
    node, found = done.node, []
    for i in sorted(node.in_ports()):
        source = None if node.in_port(i).disconnected() else node.in_port(i).get_source()
        if (source is not None and source.node.soft_get("type") == kind
                and len(source.get_destinations()) == 1):
            found.append((i, source.node, source.node.in_port(0).get_source()))
    for i, op, inner in found:
        node.in_port(i).disconnect()
        op.in_port(0).disconnect()
        inner.connect(node.in_port(i))
    done.unwrap_aside = set_aside(graph, [op.out_port(0) for _, op, _ in found])
    done.unwrapped = [(i, op.id) for i, op, _ in found]


def _rewrap(graph: Graph, done: _Shown, lenient: bool = False) -> None:
    """The ops set aside by _unwrap back between the node and its inputs (lenient: a node the
    pass replaced may have lost them; the ops then go)."""
    node = done.node
    now = _connected(node)
    if any(i not in now for i, _ in done.unwrapped):
        if lenient:
            return
        raise ExtensionError(f"MO's {node.op} node '{node.soft_get('name', node.id)}' lost an "
                             "input in the pass: replace the node instead")
    put_back(graph, done.unwrap_aside)
    for i, op_id in done.unwrapped:
        op = Node(graph, op_id)
        node.in_port(i).disconnect()
        now[i].connect(op.in_port(0))
        op.out_port(0).connect(node.in_port(i))


def show(graph: Graph) -> None:
    shown: list[_Shown] = []
    nodes = [node for node in graph.get_op_nodes() if node.soft_get(MO_FRONT, None)]
    for node in nodes:  # (setting ops aside removes nodes: the list is made first)
        if not graph.has_node(node.id):
            continue
        front = node[MO_FRONT]
        if front["until"] in graph.graph.get(PASSED_ANCHORS, ()):
            continue
        done = _absorb(graph, node, front["absorbs"]) if front["absorbs"] else None
        if done is None and front["absorbs"]:
            continue  # (not the form the translator wrote: a pass rewired it)
        if done is None:
            done = (_remap(graph, node, front["ports"]) if front["ports"]
                    else _drop_extra(graph, node, front["inputs"]))
        if front["unwraps"]:
            _unwrap(graph, done, front["unwraps"])
        done.added = [i for i in range(front["inputs"])
                      if i not in node.in_ports() and i not in front["consts"]]
        done.saved = {key: node[key] for key in front["attrs"] if key in node.attrs()}
        for i in done.added:  # MO's unconnected ports
            node.add_input_port(i)
        done.consts = [(i, _const_input(graph, node, i, value))
                       for i, value in front["consts"].items()]
        node.attrs().update(op=front["op"], type=front["type"], version=front["version"],
                            infer=None, **front["attrs"])
        shown.append(done)
    graph.graph[_SHOWN] = shown


def _const_input(graph: Graph, node: Node, port: int, value: Any) -> Node:
    const = Op.builtin_ops["Const"](graph).create_node(
        attrs={"name": f"{node.soft_get('name', node.id)}/mo_input_{port}", "value": value})
    node.add_input_port(port, skip_if_exist=True)
    const.out_port(0).connect(node.in_port(port))
    return const


def _drop_consts(graph: Graph, done: _Shown, pass_cls: type | None) -> None:
    """The Const inputs shown go; a pass that rewired or changed one stops with one line."""
    node = done.node
    for port, const in done.consts:
        source = None if node.in_port(port).disconnected() else node.in_port(port).get_source()
        if source is None or source.node.id != const.id or not _same(
                const.soft_get("value"), node[MO_FRONT]["consts"][port]):
            raise ExtensionError(
                f"{class_location(pass_cls)}the pass changed input {port} of MO's "
                f"{node[MO_FRONT]['op']} node '{node.soft_get('name', node.id)}', which extgen "
                f"holds in another form in its {done.own['op']}: replace the node instead")
        node.in_port(port).disconnect()
        node.delete_input_port(port)
        if not const.out_port(0).get_destinations():
            graph.remove_node(const.id)


def drop_unused_ports(node: Node, ports: list[int], pass_cls: type | None, what: str) -> None:
    """Delete the input ports shown unconnected (MO's node had them); a pass that connected one
    stops with one line naming pass_cls and `what` the node is."""
    for i in ports:
        if i not in node.in_ports():
            continue
        if not node.in_port(i).disconnected():
            raise ExtensionError(f"{class_location(pass_cls)}the pass connected input {i} of "
                                 f"{what}: replace the node in the pass instead")
        node.delete_input_port(i)


def class_location(cls: type | None) -> str:
    """'<file>:<line>: ' of a pass class, for its one-line refusals ('' for none)."""
    if cls is None:
        return ""
    return f"{inspect.getsourcefile(cls)}:{inspect.getsourcelines(cls)[1]}: "


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return a == b


def _connected(node: Node) -> dict[int, Port]:
    return {i: node.in_port(i).get_source() for i in sorted(node.in_ports())
            if not node.in_port(i).disconnected()}


def _unabsorb(graph: Graph, done: _Shown) -> None:
    node, count = done.node, done.inputs
    sources = _connected(node)
    if sorted(sources) != list(range(count + 1)):
        raise ExtensionError(f"MO's {node.op} node '{node.soft_get('name', node.id)}' lost an "
                             "input in the pass: replace the node instead")
    for i in list(node.in_ports()):
        node.in_port(i).disconnect()
        if i > 1:
            node.delete_input_port(i)
    put_back(graph, done.aside)
    producer = Node(graph, done.producer)
    for i in range(count):
        sources[i].connect(producer.in_port(i))
    producer.out_port(0).connect(node.in_port(0))
    sources[count].connect(node.in_port(1))


def _take_back(graph: Graph, node: Node, port: int, key: str, value: Any) -> None:
    """MO's attribute `key` again where the pass gave it as a Const of the same value on the
    port shown unconnected (TopKNormalize's `k`); extgen holds it its own way."""
    if port not in node.in_ports() or node.in_port(port).disconnected():
        return
    const = node.in_port(port).get_source().node
    if const.soft_get("op") != "Const" or not _same(const.soft_get("value"), value):
        return
    node.in_port(port).disconnect()
    if not const.out_port(0).get_destinations():
        graph.remove_node(const.id)
    node[key] = value


def _unread(node: Node) -> bool:
    return not any(port.get_destinations() for port in node.out_ports().values())


def restore(graph: Graph, pass_cls: type | None = None) -> None:
    """pass_cls: the pass that ran, named in the one line a changed attribute stops with. A
    node the pass replaced and left unread goes (MO's clean-up took it), unless extgen's own
    form of another node reads it again."""
    unread = []
    for done in graph.graph.pop(_SHOWN, []):
        node = done.node
        if not graph.has_node(node.id):
            continue
        front = node[MO_FRONT]
        if node.soft_get("op") != front["op"]:
            del node[MO_FRONT]  # rewritten: as the pass left it
            continue
        if _unread(node):
            unread.append(node)
        for port, key in front["as_inputs"].items():
            _take_back(graph, node, port, key, front["attrs"][key])
        changed = [key for key, value in front["attrs"].items()
                   if not _same(node.soft_get(key, None), value)]
        if changed:
            where = class_location(pass_cls)
            raise ExtensionError(
                f"{where}the pass changed {', '.join(changed)} of MO's {front['op']} "
                f"node '{node.soft_get('name', node.id)}', which extgen holds as "
                f"{done.own['op']}: replace the node in the pass instead of changing it")
        _drop_consts(graph, done, pass_cls)
        for key in front["attrs"]:
            del node[key]
        node.attrs().update(done.saved)
        node.attrs().update(done.own)
        if done.producer is not None:
            _unabsorb(graph, done)
            continue
        drop_unused_ports(node, done.added, pass_cls,
                          f"MO's {front['op']} node '{node.soft_get('name', node.id)}', which "
                          f"extgen holds as {done.own['op']} without it")
        if done.unwrapped:
            _rewrap(graph, done, lenient=_unread(node))
        if done.remapped:
            _unmap(graph, done, front["ports"], lenient=_unread(node))
            continue
        put_back(graph, done.aside)
        for i, source in done.sources.items():
            node.add_input_port(i, skip_if_exist=True)
            if source is not None:
                source.connect(node.in_port(i))
    for node in unread:
        if graph.has_node(node.id) and _unread(node):
            graph.remove_node(node.id)
