"""Port and Connection: stage-aware traversal and editing of the graph (MO's port API)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from converter.graph.port_table import PortTable

if TYPE_CHECKING:
    from converter.graph.graph import Node

__all__ = ["Connection", "Port", "PortData"]

_TABLE_KEY = {"in": "_in_ports", "out": "_out_ports"}
_FEW_ENTRIES = 16


class Port:
    """Input or output port `idx` of an op node."""

    __slots__ = ("idx", "node", "type")

    def __init__(self, node: Node, idx: int, type: str) -> None:
        self.node, self.idx, self.type = node, idx, type

    def __repr__(self) -> str:
        return f"Port({self.node.soft_get('name', self.node.id)!r}, {self.type}, {self.idx})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Port)
            and (other.node, other.idx, other.type) == (self.node, self.idx, self.type)
        )

    def __hash__(self) -> int:
        return hash((self.node.id, self.idx, self.type))

    @property
    def graph(self):
        return self.node.graph

    def _front(self) -> bool:
        return self.graph.stage in (None, "front")

    # -- data nodes (middle/back) -----------------------------------------------------------
    def _in_data_id(self) -> str | None:
        for u, _, d in self.graph.in_data(self.node.id):
            if d.get("in") == self.idx:
                return u
        return None

    def _out_data_id(self, create: bool = False) -> str | None:
        for _, v, d in self.graph.out_data(self.node.id):
            if d.get("out") == self.idx:
                return v
        return self.graph.add_data_node(self.node.id, self.idx) if create else None

    def data_node(self) -> Node | None:
        """The data node behind this port (middle/back stage)."""
        from converter.graph.graph import Node

        nid = self._in_data_id() if self.type == "in" else self._out_data_id(create=True)
        return None if nid is None else Node(self.graph, nid)

    @property
    def data(self) -> PortData:
        return PortData(self)

    # -- traversal ----------------------------------------------------------------------------
    def get_source(self) -> Port | None:
        """For an input port, the output port feeding it."""
        from converter.graph.graph import Node

        if self.type != "in":
            msg = "get_source() is for input ports"
            raise ValueError(msg)
        for src, _, edge in self.graph.in_data(self.node.id):
            if edge.get("in") != self.idx:
                continue
            if self._front():
                return Port(Node(self.graph, src), edge["out"], "out")
            for u, _, d in self.graph.in_data(src):  # the data node's producer
                return Port(Node(self.graph, u), d["out"], "out")
            return None
        return None

    def get_destinations(self) -> list[Port]:
        """For an output port, every input port it feeds."""
        from converter.graph.graph import Node

        if self.type != "out":
            msg = "get_destinations() is for output ports"
            raise ValueError(msg)
        if self._front():
            return [
                Port(Node(self.graph, v), d["in"], "in")
                for _, v, d in self.graph.out_data(self.node.id)
                if d.get("out") == self.idx
            ]
        data = self._out_data_id()
        if data is None:
            return []
        return [
            Port(Node(self.graph, v), d["in"], "in")
            for _, v, d in self.graph.out_data(data)
        ]

    def get_destination(self) -> Port | None:
        dests = self.get_destinations()
        if len(dests) > 1:
            msg = f"{self} has {len(dests)} destinations; use get_destinations()"
            raise ValueError(msg)
        return dests[0] if dests else None

    def disconnected(self) -> bool:
        if self.type == "in":
            return self._in_data_id() is None
        return not self.get_destinations()

    # -- editing -----------------------------------------------------------------------------
    def disconnect(self) -> None:
        g = self.graph
        if self.type == "in":
            g.remove_edges_where(self.node.id, "in", self.idx)
        elif self._front():
            g.remove_edges_where(self.node.id, "out", self.idx)
        else:
            data = self._out_data_id()
            if data is not None:
                g.remove_edges_where(data, "out")

    def connect(self, dst: Port, edge_attrs: dict | None = None) -> None:
        """Connect this output port to the input port dst (dst is disconnected first).
        `in_port.connect(out_port)` works too, as in MO."""
        if self.type == "in" and dst.type == "out":
            dst.connect(self, edge_attrs)
            return
        if self.type != "out" or dst.type != "in":
            msg = "connect() goes from an output port to an input port"
            raise ValueError(msg)
        dst.disconnect()
        attrs = dict(edge_attrs or {})
        if self._front():
            self.graph.add_edge(self.node.id, dst.node.id, out=self.idx, **{**attrs, "in": dst.idx})
        else:
            data = self._out_data_id(create=True)
            self.graph.add_edge(data, dst.node.id, **{**attrs, "in": dst.idx})

    @property
    def input_permutation(self) -> None:
        """MO's layout permutation of an input, which MO's passes switch off: extgen's layout
        change applies none."""
        return None

    @input_permutation.setter
    def input_permutation(self, value: Any) -> None:
        if value is not None:
            msg = ("input_permutation: extgen's layout change applies no MO input permutation; "
                   "permute the input in your own pass after the layout change")
            raise AttributeError(msg)

    def get_connection(self) -> Connection:
        return Connection(self)

    # -- tensor names ------------------------------------------------------------------------
    def _port_attrs(self) -> dict[str, Any]:
        return self.node._ports(self.type).setdefault(self.idx, {})

    def _port_info(self) -> Mapping[str, Any]:
        """This port's attributes, to read (the port is registered if it was not)."""
        info = self.node._port_view(self.type).get(self.idx)
        return self._port_attrs() if info is None else info

    def get_tensor_names(self, port_renumber: bool = False) -> list[str]:
        port = self if self.type == "out" else self.get_source()
        if port is None:
            return []
        return [t for _, t in port._port_info().get("fw_tensor_debug_info", [])]

    def add_tensor_names(self, names: list[str], op_name: str | None = None) -> None:
        def add(info: list) -> None:
            for name in names:
                if all(t != name for _, t in info):
                    info.append((op_name or self.node.soft_get("name", ""), name))

        self._update_info(add)

    def remove_tensor_names(self) -> None:
        table = self.node._port_view(self.type)
        if isinstance(table, PortTable):
            self.node[_TABLE_KEY[self.type]] = table.with_info(self.idx, None)
        else:
            self._port_attrs().pop("fw_tensor_debug_info", None)

    def _update_info(self, update: Callable[[list], None]) -> None:
        """update(the port's list of (op name, tensor name) pairs, created empty if absent);
        a read-only port table stays one (a new table holds the new pairs) while it has few
        entries (a table is searched and rebuilt whole: a node with many named ports gets
        dicts)."""
        table = self.node._port_view(self.type)
        if isinstance(table, PortTable) and len(table.extra) < 2 * _FEW_ENTRIES:
            info = list(table.info(self.idx))
            update(info)
            self.node[_TABLE_KEY[self.type]] = table.with_info(self.idx, tuple(info))
        else:
            update(self._port_attrs().setdefault("fw_tensor_debug_info", []))


_SHAPES: dict[tuple, tuple] = {}


def _shared(shape: tuple | None) -> tuple | None:
    """One tuple per distinct shape (most tensors of a graph share a few shapes; a tuple is
    immutable), up to a few thousand shapes."""
    if shape is None:
        return None
    shared = _SHAPES.get(shape)
    if shared is None:
        if len(_SHAPES) >= 4096:
            return shape
        shared = _SHAPES[shape] = shape
    return shared


class PortData:
    """shape / value / data_type of the tensor on a port (middle and back stage only)."""

    __slots__ = ("port",)

    def __init__(self, port: Port) -> None:
        self.port = port

    def _node(self) -> Node | None:
        if self.port._front():
            return None
        return self.port.data_node()

    def get_attr(self, key: str) -> Any:
        node = self._node()
        return None if node is None else node.soft_get(key, None)

    def set_attr(self, key: str, value: Any) -> None:
        node = self._node()
        if node is None:
            msg = f"cannot set '{key}' on {self.port}: no tensor here in the front stage"
            raise ValueError(msg)
        node[key] = value

    def has_valid(self, key: str) -> bool:
        return self.get_attr(key) is not None

    def get_shape(self) -> tuple[int, ...] | None:
        return self.get_attr("shape")

    def set_shape(self, shape: Any) -> None:
        from converter.graph.shape import as_shape

        self.set_attr("shape", _shared(as_shape(shape)))  # numpy and MO's masked shapes too

    def get_value(self) -> Any:
        return self.get_attr("value")

    def set_value(self, value: Any) -> None:
        import numpy as np

        value = np.asarray(value)
        self.set_attr("value", value)
        self.set_attr("shape", tuple(value.shape))
        if self.get_attr("data_type") is None:
            self.set_attr("data_type", value.dtype)
        # the Const producing the tensor holds the value too (what the IR writes), as in MO
        port = self.port
        producer = port.node if port.type == "out" else port.get_source().node
        if producer.soft_get("type") == "Const":
            producer["value"] = value

    def get_data_type(self) -> Any:
        return self.get_attr("data_type")

    def set_data_type(self, dtype: Any) -> None:
        self.set_attr("data_type", dtype)


def _carry_tensor_facts(old: Port, new: Port) -> None:
    """Middle stage: MO moved the old output's data node to the new source, so an op a pass
    creates there has that shape and type until it is inferred."""
    if old._front():  # no tensors yet (data_node() would make one for the old port)
        return
    src, dst = old.data_node(), new.data_node()
    if src is None or dst is None:
        return
    for key in ("shape", "data_type"):
        if dst.soft_get(key, None) is None and src.soft_get(key, None) is not None:
            dst[key] = src[key]


class Connection:
    """A source output port and all the input ports it feeds."""

    def __init__(self, port: Port) -> None:
        self.source = port if port.type == "out" else port.get_source()
        # MO: an input port's connection is its source and that port alone
        self.destinations = (
            self.source.get_destinations() if port.type == "out" else [port]
        )

    @property
    def data(self) -> PortData | None:
        """MO's Connection.data: the source's tensor (get_value, get_shape)."""
        return None if self.source is None else PortData(self.source)

    def get_source(self) -> Port | None:
        return self.source

    def get_destination(self) -> Port | None:
        if len(self.destinations) > 1:
            msg = "connection has several destinations; use get_destinations()"
            raise ValueError(msg)
        return self.destinations[0] if self.destinations else None

    def get_destinations(self) -> list[Port]:
        return list(self.destinations)

    def set_source(self, port: Port, attributes_save_mode: str = "merge") -> None:
        """Feed every destination from port instead; tensor names move along."""
        old = self.source
        for dst in self.destinations:
            port.connect(dst)
        if old is not None and attributes_save_mode in ("merge", "source"):
            names = old._port_info().get("fw_tensor_debug_info", [])
            if names:
                port._update_info(lambda target: target.extend(n for n in names if n not in target))
                old.remove_tensor_names()
        if old is not None and attributes_save_mode == "merge":
            _carry_tensor_facts(old, port)
        self.source = port

    def set_destination(self, port: Port) -> None:
        for dst in self.destinations:
            dst.disconnect()
        if self.source is not None:
            self.source.connect(port)
        self.destinations = [port]

    def add_destination(self, port: Port) -> None:
        if self.source is not None:
            self.source.connect(port)
        self.destinations.append(port)

    def insert_node(self, new_node: Node) -> None:
        """source -> new_node(in 0, out 0) -> every destination; in the middle stage the new
        output has the source's shape and type until inferred (MO's insert_node)."""
        dests = list(self.destinations)
        for dst in dests:
            dst.disconnect()
        if self.source is not None:
            self.source.connect(new_node.in_port(0))
        for dst in dests:
            new_node.out_port(0).connect(dst)
        if self.source is not None:
            _carry_tensor_facts(self.source, new_node.out_port(0))

    def remove(self) -> None:
        for dst in self.destinations:
            dst.disconnect()
