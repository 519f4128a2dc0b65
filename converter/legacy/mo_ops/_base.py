"""What every MO op class shares here: MO's attributes in, the built-in opset op out.

An MO op class is a subclass of the built-in op it stands for, with `to_opset(attrs)` deriving
the opset attributes from MO's (MO's stay on the node for passes that read them). Until its
first inference the node is MO's: MO's op name, type, version and port counts (MO_NODES).
`infer(node)` makes it the built-in op, derives the opset attributes again from the node, as
MO's passes may have changed them, and runs the built-in inference; classes whose MO inference
left attributes on the node (window ops) add them. The helpers below rewire a node in place:
its inputs renumbered, constant inputs added, ops appended after it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from converter.graph.graph import Graph, Node
from converter.legacy.mo_ops.mo_nodes import MO_NODES, node_facts

__all__ = [
    "MoOp", "append_op", "as_builtin", "become", "const_input", "ints", "move_inputs",
    "per_channel",
]


def ints(values: Any) -> list[int]:
    return [int(v) for v in np.ravel(values)]


class MoOp:
    """Mixin before a built-in op class. Until inference the node is MO's: its `op` is MO's
    name (`mo_op`, or MO_NODES), and type, version and port counts are MO's where MO_NODES
    says they differ; otherwise the built-in's (MO passes `version` for its own versions,
    which the built-in's semantics replace). MO's constructor defaults (MO_NODES `attrs`)
    apply under what the caller gives."""

    mo_op: ClassVar[str | None] = None
    mo_node: ClassVar[dict[str, Any]] = {}  # MO's node facts, from MO_NODES by class name

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.mo_node = MO_NODES.get(cls.__name__, cls.mo_node)
        if "infer" in cls.__dict__:  # every infer starts from the built-in op
            own = cls.__dict__["infer"].__func__

            def infer(klass: type, node: Node) -> None:
                as_builtin(klass, node)
                own(klass, node)

            cls.infer = classmethod(functools.wraps(own)(infer))

    def __init__(self, graph: Graph, attrs1: dict | None = None, attrs2: dict | None = None):
        cls = type(self)
        given = {**(attrs1 or {}), **(attrs2 or {})}
        defaults = cls.mo_node.get("attrs", {})
        super().__init__(graph, cls.to_opset({**defaults, **given}))  # type: ignore[call-arg]
        self.attrs["version"] = cls.version_for(self.attrs)  # type: ignore[attr-defined]
        self.attrs["mo_lowered"] = False  # until inference made it the opset op
        if cls.mo_op:
            self.attrs["op"] = cls.mo_op
        self.attrs.update({key: value for key, value in node_facts(cls.mo_node).items()
                           if key == "version" or key not in given})

    @classmethod
    def to_opset(cls, attrs: dict) -> dict:
        """attrs with the opset attributes derived from MO's."""
        return attrs

    @classmethod
    def prepare(cls, node: Node) -> None:
        """Before inference: the opset attributes (and inputs) from the node's MO ones."""
        node.attrs().update(cls.to_opset(dict(node.attrs())))
        node.attrs().update(op=cls.op, mo_lowered=True)  # type: ignore[attr-defined]

    @classmethod
    def infer(cls, node: Node) -> None:
        as_builtin(cls, node)
        cls.prepare(node)
        super().infer(node)  # type: ignore[misc]


def as_builtin(cls: type, node: Node) -> None:
    """A node still in MO's form gets the op, type, version and port counts of cls's built-in
    op (the point where MO's back phase made its node the IR's); unconnected inputs beyond the
    built-in's count go."""
    if node.soft_get("mo_lowered", True) is not False or not cls.mo_node:
        return
    attrs = node.attrs()
    attrs.update(op=cls.op, type=cls.type, version=cls.version_for(attrs),
                 in_ports_count=cls.in_ports_count, out_ports_count=cls.out_ports_count)
    if cls.in_ports_count is not None:
        for port in [p for p in node.in_ports() if p >= cls.in_ports_count]:
            if node.in_port(port).disconnected():
                node.delete_input_port(port)
    node.update_node()


def become(node: Node, op: str | type, **attrs: Any) -> type:
    """The node is now the built-in op `op` (a name or class), with attrs; returns its class."""
    from converter.legacy.ops import builtin_op

    cls = builtin_op(op) if isinstance(op, str) else op
    # its infer too: a second inference (after a pass) must not lower the node again
    node.attrs().update(op=cls.op, type=cls.type, mo_lowered=True, infer=cls.infer,
                        in_ports_count=cls.in_ports_count, IE=list(cls.attr_types), **attrs)
    node["version"] = cls.version_for(node.attrs())
    node.update_node()
    return cls


def _in_edges(node: Node) -> list[tuple[str, str, Any, dict]]:
    return list(node.graph.in_edges(node.id, keys=True, data=True))


def move_inputs(node: Node, ports: Sequence[int | None]) -> None:
    """Renumber input edges: ports[i] is the old port that becomes port i (None: none). Old
    ports not listed are disconnected. Works with and without data nodes."""
    graph = node.graph
    new_of = {old: new for new, old in enumerate(ports) if old is not None}
    for src, dst, key, data in _in_edges(node):
        if data.get("in") not in new_of:
            graph.remove_edge(src, dst, key)
        else:
            graph.add_edge(src, dst, key, **{**data, "in": new_of[data["in"]]})
    node.update_node()


def const_input(node: Node, port: int, value: Any, dtype: Any = np.int64) -> None:
    """Feed input `port` from a new Const holding value (with its data node after the front)."""
    from converter.legacy.ops import builtin_op

    graph = node.graph
    value = np.asarray(value, dtype=dtype)
    name = f"{node.soft_get('name', node.id)}/port{port}"
    const = builtin_op("Const")(graph, {"name": name, "value": value})
    if graph.stage in (None, "front"):
        const.create_node().out_port(0).connect(node.in_port(port))
        return
    data = const.create_node_with_data([])
    graph.add_edge(data.id, node.id, **{"in": port})
    node.update_node()


def append_op(node: Node, op: str, value: np.ndarray | Node | None, name: str, port: int = 0,
              attrs: dict | None = None) -> Node:
    """Middle stage: `op(node's output port[, value])` takes over what that output fed; value
    is a constant or a data node."""
    from converter.legacy.ops import builtin_op

    graph = node.graph
    old = node.out_port(port).data_node()
    graph.remove_edge(node.id, old.id)
    mid = graph.add_data_node(node.id, port)
    for key in ("shape", "data_type", "value"):  # node's output moves to the new data node
        graph.nodes[mid][key] = old.soft_get(key, None)
        graph.nodes[old.id][key] = None
    new = builtin_op(op)(graph, {"name": name, **(attrs or {})}).add_node()
    graph.add_edge(mid, new.id, **{"in": 0})
    if isinstance(value, Node):
        graph.add_edge(value.id, new.id, **{"in": 1})
    elif value is not None:
        const_input(new, 1, value, dtype=value.dtype)
    graph.add_edge(new.id, old.id, out=0)
    out = node.out_port(port)
    new.out_port(0).add_tensor_names(out.get_tensor_names())  # the model's name goes along
    out.remove_tensor_names()
    new.infer(new)
    return new


def per_channel(node: Node, port: int, rank: int) -> np.ndarray | None:
    """Constant input `port` shaped to broadcast along axis 1 (None when not connected)."""
    if node.in_port(port).disconnected():
        return None
    value = node.in_port(port).data.get_value()
    if value is None:
        msg = f"'{node.soft_get('name', node.id)}': input {port} must be constant"
        raise ValueError(msg)
    value = np.asarray(value)
    return value.reshape([1, -1] + [1] * (rank - 2)) if value.size > 1 else value.reshape(())
