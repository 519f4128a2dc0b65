"""Graph (a networkx MultiDiGraph) and the Node wrapper with MO's attribute rules.

Front stage: op -> op edges carrying `in`/`out` port numbers.
Middle and back stages: op -> data (`out`) and data -> op (`in`) edges; a data node holds
`shape`, `value` and `data_type` of one output port.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping
from typing import Any

import networkx as nx

from converter.errors import ConversionError, UsageError
from converter.graph.edges import EdgeStore, NodeEdges
from converter.graph.port import Port
from converter.graph.port_table import PortTable

__all__ = ["Graph", "Node"]

_NONE = PortTable.of(0)


class Graph(EdgeStore):
    """The model being converted (a networkx MultiDiGraph whose equal edges share their
    attribute dicts). `graph.graph` holds model-level facts (fw, layout, cmd_params)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stage: str | None = None
        self.strict_mode = False
        self._id_count = 0

    def unique_id(self, prefix: str = "") -> str:
        """A node id not yet used in the graph, starting with prefix."""
        if prefix and prefix not in self:
            return prefix
        while True:
            self._id_count += 1
            candidate = f"{prefix}{self._id_count}"
            if candidate not in self:
                return candidate

    def in_data(self, nid: str) -> Iterator[tuple[str, str, dict]]:
        """(producer, nid, attrs) per edge into nid: `in_edges(nid, data=True)` read straight
        off the adjacency, without building a networkx view per call."""
        for u, keyed in self._pred[nid].items():
            for d in keyed.values():
                yield u, nid, d

    def out_data(self, nid: str) -> Iterator[tuple[str, str, dict]]:
        """(nid, consumer, attrs) per edge out of nid, as `out_edges(nid, data=True)`."""
        for v, keyed in self._succ[nid].items():
            for d in keyed.values():
                yield nid, v, d

    def remove_edges_where(self, nid: str, side: str, port: int | None = None) -> None:
        """Remove the edges into (side 'in') or out of (side 'out') nid whose `in`/`out` port
        number is `port`; every edge on that side when port is None."""
        adjacency = self._pred if side == "in" else self._succ
        drop = [(other, k) for other, keyed in adjacency[nid].items()
                for k, d in keyed.items() if port is None or d.get(side) == port]
        for other, k in drop:
            self.remove_edge(*((other, nid) if side == "in" else (nid, other)), k)

    def add_data_node(self, producer: str, port: int, **attrs: Any) -> str:
        """A data node (middle/back stage) for output `port` of op `producer`, wired to it."""
        name = f"{self.nodes[producer].get('name', producer)}/Output_{port}/Data_"
        data_id = self.unique_id(name)
        self.add_node(data_id, **{"kind": "data", "name": name, "shape": None, "value": None,
                                  "data_type": None, **attrs})
        self.add_edge(producer, data_id, out=port)
        return data_id

    def get_op_nodes(self, **attrs: Any) -> list[Node]:
        return self.get_nodes_with_attributes(kind="op", **attrs)

    def get_data_nodes(self, has_value: bool | None = None) -> list[Node]:
        nodes = self.get_nodes_with_attributes(kind="data")
        if has_value is None:
            return nodes
        return [n for n in nodes if (n.soft_get("value", None) is not None) == has_value]

    def get_nodes_with_attributes(self, **attrs: Any) -> list[Node]:
        return [
            Node(self, nid)
            for nid, data in self.nodes(data=True)
            if all(k in data and data[k] == v for k, v in attrs.items())
        ]

    def get_node_id_by_name(self, name: str) -> str:
        for nid, data in self.nodes(data=True):
            if data.get("name") == name:
                return nid
        msg = f"no node named '{name}' in the model"
        raise UsageError(msg)

    def erase_node(self, node: Node) -> None:
        """Remove node; in the front stage its one input then feeds what it fed (MO's erase)."""
        inputs = list(self.in_data(node.id))
        if len(inputs) == 1 and "out" in inputs[0][2]:
            src, _, in_attrs = inputs[0]
            for _, dst, attrs in list(self.out_data(node.id)):
                self.add_edge(src, dst, **{**attrs, "out": in_attrs["out"]})
        self.remove_node(node.id)

    def topological_order(self) -> list[Node]:
        return [Node(self, nid) for nid in self.topological_ids()]

    def topological_ids(self) -> list[str]:
        """Node ids in a deterministic topological order: of the nodes ready, the one added
        first (Kahn's algorithm on the adjacency, one pass; counts by position in a list, ids
        and not Nodes out: a 200k-node graph's order took 35 MiB at the conversion's peak)."""
        ids = list(self._node)
        index = dict(zip(ids, range(len(ids))))
        waiting = [len(self._pred[nid]) for nid in ids]
        ready = [i for i, count in enumerate(waiting) if not count]  # sorted: a heap
        order: list[str] = []
        while ready:
            nid = ids[heapq.heappop(ready)]
            order.append(nid)
            for succ in self._succ[nid]:
                i = index[succ]
                waiting[i] -= 1
                if not waiting[i]:
                    heapq.heappush(ready, i)
        if len(order) < len(ids):
            stuck = (nid for nid, count in zip(ids, waiting) if count)
            cycle = nx.find_cycle(self.subgraph(stuck))
            names = " -> ".join(str(self.nodes[u].get("name", u)) for u, *_ in cycle)
            msg = f"the model graph has a cycle: {names}"
            raise ConversionError(msg)
        return order

    def has_cycle(self) -> bool:
        """True when the edges loop (TF1 control flow: NextIteration feeds Merge): Kahn's
        algorithm on the adjacency leaves nodes unvisited."""
        waiting = {nid: len(preds) for nid, preds in self._pred.items()}
        ready = [nid for nid, count in waiting.items() if not count]
        visited = 0
        while ready:
            visited += 1
            for succ in self._succ[ready.pop()]:
                waiting[succ] -= 1
                if not waiting[succ]:
                    ready.append(succ)
        return visited < len(waiting)

    def pseudo_topological_sort(self, reverse: bool = False) -> list[Node]:
        order = self.topological_order()
        return order[::-1] if reverse else order

    def clean_up(self, keep_parameters: bool = True) -> None:
        """Remove nodes that no Result (nor Assign, a stateful model's sink) depends on (unused
        Parameters stay unless told)."""
        results = [nid for nid, d in self.nodes(data=True) if d.get("op") in ("Result", "Assign")]
        keep, stack = set(results), list(results)
        while stack:  # one reverse sweep from every Result at once
            for pred in self.predecessors(stack.pop()):
                if pred not in keep:
                    keep.add(pred)
                    stack.append(pred)
        # unused outputs of live ops stay: IR output ports are numbered by position
        keep |= {
            v for u in list(keep) for v in self.successors(u)
            if self.nodes[v].get("kind") == "data"
        }
        dead = [
            nid
            for nid, d in self.nodes(data=True)
            if nid not in keep and not (keep_parameters and d.get("op") == "Parameter")
        ]
        self.remove_nodes_from(dead)

    def check_empty_graph(self, where: str = "") -> None:
        if len(self) == 0:
            msg = f"the graph became empty{' after ' + where if where else ''}"
            raise ConversionError(msg)


class Node(NodeEdges):
    """A view on one node of a Graph. Reading a missing attribute raises AttributeError;
    assigning by `node.x = v` works only for existing attributes (use node['x'] = v to add)."""

    __slots__ = ("graph", "id")

    def __init__(self, graph: Graph, node_id: str) -> None:
        object.__setattr__(self, "graph", graph)
        object.__setattr__(self, "id", node_id)

    # -- attribute access (MO rules) --------------------------------------------------------
    @property
    def node(self) -> str:
        return self.id

    def attrs(self) -> dict[str, Any]:
        return self.graph._node[self.id]

    def __getattr__(self, key: str) -> Any:
        try:
            return self.graph._node[self.id][key]
        except KeyError:
            msg = f"Attribute {key} missing in {self.id} node"
            raise AttributeError(msg) from None

    def __setattr__(self, key: str, value: Any) -> None:
        attrs = self.graph._node[self.id]
        if key not in attrs:
            msg = f"Attribute {key} missing in {attrs.get('name', self.id)} node"
            raise AttributeError(msg)
        attrs[key] = value

    def __getitem__(self, key: str) -> Any:
        return self.graph._node[self.id][key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.graph._node[self.id][key] = value

    def __delitem__(self, key: str) -> None:
        del self.graph._node[self.id][key]

    def __contains__(self, key: str) -> bool:
        return key in self.graph._node[self.id]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other.graph is self.graph and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"Node({self.soft_get('name', self.id)!r}, op={self.soft_get('op', None)!r})"

    has = __contains__  # (MO's name)

    def has_valid(self, key: str) -> bool:
        return self.graph._node[self.id].get(key) is not None

    def has_and_set(self, key: str) -> bool:
        return bool(self.graph._node[self.id].get(key))

    def soft_get(self, key: str, default: Any = "<UNKNOWN>") -> Any:
        return self.graph._node[self.id].get(key, default)

    def get_opset(self) -> str:  # (MO's: the version, "extension" without one)
        return self.soft_get("version", "extension")

    # -- ports ----------------------------------------------------------------------------
    def update_node(self) -> None:
        """Create port bookkeeping from in_ports_count/out_ports_count (MO's update_node): a
        shared read-only table of empty ports until a port is written (see _ports)."""
        attrs = self.attrs()
        for key, count_key in (("_in_ports", "in_ports_count"), ("_out_ports", "out_ports_count")):
            count = attrs.get(count_key) or 0
            ports = attrs.get(key, _NONE)
            if isinstance(ports, PortTable):
                grown = ports.grown(count)
                if grown is not None:
                    attrs[key] = grown
                    continue
                ports = attrs[key] = ports.as_dicts()
            for i in range(count):
                ports.setdefault(i, {})

    def _port_view(self, kind: str) -> Mapping[int, Mapping]:
        """The port table of one side, to read: possibly the shared table of empty ports."""
        return self.graph._node[self.id].get("_in_ports" if kind == "in" else "_out_ports", _NONE)

    def _ports(self, kind: str) -> dict[int, dict]:
        """The port table of one side, to write: a shared empty table becomes the node's own."""
        attrs = self.graph._node[self.id]
        key = "_in_ports" if kind == "in" else "_out_ports"
        ports = attrs.get(key, _NONE)
        if isinstance(ports, PortTable):
            ports = attrs[key] = ports.as_dicts()
        return ports

    def in_port(self, idx: int = 0) -> Port:
        if idx not in self._port_view("in"):
            self._ports("in")[idx] = {}
        return Port(self, idx, "in")

    def out_port(self, idx: int = 0) -> Port:
        if idx not in self._port_view("out"):
            self._ports("out")[idx] = {}
        return Port(self, idx, "out")

    def _connected_idx(self, kind: str) -> set[int]:
        if self.kind != "op":
            return set()
        if kind == "in":
            return {d["in"] for *_, d in self.graph.in_data(self.id) if "in" in d}
        return {d["out"] for *_, d in self.graph.out_data(self.id) if "out" in d}

    def in_ports(self, control_flow: bool = False) -> dict[int, Port]:
        idx = set(self._port_view("in")) | self._connected_idx("in")
        return {i: self.in_port(i) for i in sorted(idx)}

    def out_ports(self, control_flow: bool = False) -> dict[int, Port]:
        idx = set(self._port_view("out")) | self._connected_idx("out")
        return {i: self.out_port(i) for i in sorted(idx)}

    def has_port(self, port_type: str, idx: int, control_flow: bool = False) -> bool:
        """Whether the node has input ('in') or output ('out') port idx, as MO's Node.has_port."""
        ports = self.in_ports() if port_type == "in" else self.out_ports()
        return idx in ports

    def add_input_port(self, idx: int, skip_if_exist: bool = False) -> Port:
        return self.in_port(idx)

    def add_output_port(self, idx: int, skip_if_exist: bool = False) -> Port:
        return self.out_port(idx)

    def delete_input_port(self, idx: int) -> None:
        self.in_port(idx).disconnect()
        self._ports("in").pop(idx, None)

    def delete_output_port(self, idx: int) -> None:
        self.out_port(idx).disconnect()
        self._ports("out").pop(idx, None)

    def is_in_port_connected(self, idx: int) -> bool:
        return not self.in_port(idx).disconnected()

    def is_out_port_connected(self, idx: int) -> bool:
        return not self.out_port(idx).disconnected()

    # -- legacy edge access -----------------------------------------------------------------
    def in_edges(self) -> dict[int, dict]:
        return self.graph.own_port_edges(self.id, "in")

    def out_edges(self) -> dict[int, dict]:
        return self.graph.own_port_edges(self.id, "out")

    def in_edge(self, idx: int = 0) -> dict:
        return self.in_edges()[idx]

    def out_edge(self, idx: int = 0) -> dict:
        return self.out_edges()[idx]

    def in_nodes(self) -> dict[int, Node] | list[Node]:
        """Input port -> producer; for a data node, as in MO, the list of its producers."""
        if self.soft_get("kind") == "data":
            return [Node(self.graph, u) for u, _ in self.graph.in_edges(self.id)]
        return {
            d["in"]: Node(self.graph, u)
            for u, _, d in self.graph.in_data(self.id)
            if "in" in d
        }

    def out_nodes(self) -> dict[int, Node] | list[Node]:
        """Output port -> node; for several consumers of one port, the last one (MO quirk).
        For a data node, as in MO, the list of its consumers."""
        if self.soft_get("kind") == "data":
            return [Node(self.graph, v) for _, v in self.graph.out_edges(self.id)]
        return {
            d["out"]: Node(self.graph, v)
            for _, v, d in self.graph.out_data(self.id)
            if "out" in d
        }

    def in_node(self, idx: int = 0) -> Node:
        return self.in_nodes()[idx]

    def out_node(self, idx: int = 0) -> Node:
        return self.out_nodes()[idx]

    def get_sorted_inputs(self) -> list[tuple[str, dict]]:
        edges = [(u, self.graph.named_edge(u, self.id, k))
                 for u, keyed in self.graph._pred[self.id].items() for k in keyed]
        return sorted(edges, key=lambda e: e[1].get("in", 0))

    def get_sorted_outputs(self) -> list[tuple[str, dict]]:
        edges = [(v, self.graph.named_edge(self.id, v, k))
                 for v, keyed in self.graph._succ[self.id].items() for k in keyed]
        return sorted(edges, key=lambda e: e[1].get("out", 0))

    def copy_node(self, new_attrs: dict | None = None) -> Node:
        attrs = {k: v for k, v in self.attrs().items() if k not in ("_in_ports", "_out_ports")}
        new_id = self.graph.unique_id(attrs.get("name", self.id))
        attrs = {**attrs, "name": new_id, **(new_attrs or {})}  # MO: the copy is named by its id
        self.graph.add_node(new_id, **attrs)
        node = Node(self.graph, new_id)
        node.update_node()
        return node

    def replace_node(self, new_node: Node, new_node_out_port: int | None = None) -> None:
        """MO's: new_node (from port new_node_out_port, else the same ports) feeds what this
        node fed, and this node goes."""
        port = {} if new_node_out_port is None else {"out": new_node_out_port}
        for _, dst, attrs in list(self.graph.out_data(self.id)):
            self.graph.add_edge(new_node.id, dst, **{**attrs, **port})
        self.graph.remove_node(self.id)

    def iter_out_data(self) -> Iterator[tuple[int, Node]]:
        """Middle stage: (port, data node) for every output data node of this op."""
        for _, v, d in self.graph.out_data(self.id):
            yield d["out"], Node(self.graph, v)
