"""EdgeStore: a networkx MultiDiGraph whose equal edges share one attribute dict and one key
dict (read-only), instead of two dicts per edge, and whose nodes keep one neighbour per side
without a dict (Neighbours).

Most edges carry one of a few tiny attribute sets ({'out': 0}, {'in': 1}, ...): a 100k-node
graph spent ~115 MiB on copies of them. A shared dict refuses writes with one line naming what
to do; `own_edge_attrs` (what Node.in_edge() and friends return) gives an edge its own dict.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, MutableMapping, ValuesView
from typing import Any, NoReturn

import networkx as nx

__all__ = ["EdgeStore", "Neighbours", "NodeEdges", "SharedDict"]

_LIMIT = 4096  # distinct shared dicts kept; past that, edges get their own
_PLAIN = frozenset({int, str, type(None)})  # no two values of these types are equal across types


class SharedDict(dict):
    """Edge attributes (or an edge's key dict) shared by every equal edge: read-only."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        msg = ("edge attributes are shared between equal edges and read-only: write them through "
               "graph.own_edge_attrs(u, v, key) or node.in_edge(port) / node.out_edge(port), "
               "or re-add the edge with graph.add_edge(u, v, key, **attrs)")
        raise TypeError(msg)

    __setitem__ = __delitem__ = update = pop = popitem = setdefault = clear = __ior__ = _refuse

    def __copy__(self) -> dict:
        return dict(self)

    def __deepcopy__(self, memo: dict) -> SharedDict:
        return self  # immutable, and its values are plain ints and strings

    def __reduce__(self) -> tuple:
        return _edge_attrs, (dict(self),)


_ATTRS: dict[tuple, SharedDict] = {}
_KEYS: dict[tuple, SharedDict] = {}


def _edge_attrs(attrs: dict) -> dict:
    """The shared dict equal to attrs (same order) where its values are plain, else attrs."""
    if not all(type(v) in _PLAIN for v in attrs.values()):
        return attrs
    items = tuple(attrs.items())
    shared = _ATTRS.get(items)
    if shared is None:
        if len(_ATTRS) >= _LIMIT:
            return attrs
        shared = _ATTRS[items] = SharedDict(items)
    return shared


def _key_dict(keyed: dict) -> dict:
    """{key: attrs} of one u -> v pair: the shared one for a single edge with an int key and
    shared attributes, else a dict of its own."""
    if len(keyed) == 1:
        ((key, attrs),) = keyed.items()
        if type(key) is int and type(attrs) is SharedDict:
            ident = (key, id(attrs))  # shared attrs live as long as _ATTRS
            shared = _KEYS.get(ident)
            if shared is None and len(_KEYS) < _LIMIT:
                shared = _KEYS[ident] = SharedDict(keyed)
            if shared is not None:
                return shared
    return keyed


_MANY = object()  # Neighbours._key when _value is a dict of them


class Neighbours(MutableMapping):
    """A node's neighbours on one side, neighbour -> key dict (networkx's inner adjacency
    dict): one neighbour in two slots (48 bytes; a dict takes 192, and most nodes of a graph
    with data nodes have one producer or one consumer), more in a dict. items(), keys() and
    values() of one neighbour are tuples (iteration, len, membership)."""

    __slots__ = ("_key", "_value")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._key: Any = None  # no neighbour (None is never a node)
        self._value: Any = None
        if args or kwargs:
            self.update(*args, **kwargs)

    def __len__(self) -> int:
        key = self._key
        return 0 if key is None else len(self._value) if key is _MANY else 1

    def __iter__(self) -> Iterator:
        key = self._key
        return iter(self._value if key is _MANY else () if key is None else (key,))

    def __contains__(self, node: object) -> bool:
        key = self._key
        if key is _MANY:
            return node in self._value
        return key is not None and (key is node or key == node)

    def __getitem__(self, node: Any) -> Any:
        key = self._key
        if key is _MANY:
            return self._value[node]
        if key is not None and (key is node or key == node):
            return self._value
        raise KeyError(node)

    def get(self, node: Any, default: Any = None) -> Any:
        key = self._key
        if key is _MANY:
            return self._value.get(node, default)
        return self._value if key is not None and (key is node or key == node) else default

    def __setitem__(self, node: Any, keyed: Any) -> None:
        key = self._key
        if key is _MANY:
            self._value[node] = keyed
        elif key is None or key is node or key == node:
            self._key, self._value = node, keyed
        else:
            self._key, self._value = _MANY, {key: self._value, node: keyed}

    def __delitem__(self, node: Any) -> None:
        key = self._key
        if key is _MANY:
            many = self._value
            del many[node]
            if len(many) == 1:
                ((self._key, self._value),) = many.items()
        elif key is not None and (key is node or key == node):
            self._key = self._value = None
        else:
            raise KeyError(node)

    def clear(self) -> None:
        self._key = self._value = None

    def items(self) -> ItemsView | tuple:
        key = self._key
        return self._value.items() if key is _MANY else () if key is None else (
            (key, self._value),)

    def keys(self) -> KeysView | tuple:
        key = self._key
        return self._value.keys() if key is _MANY else () if key is None else (key,)

    def values(self) -> ValuesView | tuple:
        key = self._key
        return self._value.values() if key is _MANY else () if key is None else (self._value,)

    def copy(self) -> dict:
        return dict(self.items())

    def __reduce__(self) -> tuple:  # copies and pickles rebuild the slots (_MANY is this run's)
        return Neighbours, (dict(self.items()),)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class NodeEdges:
    """MO's Node.get_inputs/get_outputs: [(neighbour id, edge attrs)] of the edges whose attrs
    hold every edge_attr item (control-flow edges only when asked)."""

    __slots__ = ()

    def _edges(self, edges: Any, edge_attr: dict | None, control_flow: bool) -> list:
        want = edge_attr or {}
        return [(n, d) for n, d in edges if (control_flow or not d.get("control_flow_edge"))
                and all(k in d and d[k] == v for k, v in want.items())]

    def get_inputs(self, edge_attr: dict | None = None, control_flow: bool = False) -> list:
        edges = ((u, d) for u, _, d in self.graph.in_edges(self.id, data=True))
        return self._edges(edges, edge_attr, control_flow)

    def get_outputs(self, edge_attr: dict | None = None, control_flow: bool = False) -> list:
        edges = ((v, d) for _, v, d in self.graph.out_edges(self.id, data=True))
        return self._edges(edges, edge_attr, control_flow)


class EdgeStore(nx.MultiDiGraph):
    """MultiDiGraph with shared edge dicts: networkx's edge-writing methods replace an edge's
    dicts instead of writing into them. A node's neighbours are a Neighbours."""

    adjlist_inner_dict_factory = Neighbours

    def add_edge(self, u_for_edge: Any, v_for_edge: Any, key: Any = None, **attr: Any) -> Any:
        return self._put_edge(u_for_edge, v_for_edge, key, attr)

    def _put_edge(self, u: Any, v: Any, key: Any, attr: dict) -> Any:
        """add_edge with attr as a dict (keys need not be strings)."""
        for n in (u, v):
            if n not in self._succ:
                self.add_node(n)
        keyed = self._succ[u].get(v)
        if keyed is None:
            key = 0 if key is None else key
            keyed = {key: _edge_attrs(attr)}
        else:
            key = self.new_edge_key(u, v) if key is None else key
            old = keyed.get(key)
            keyed = {**keyed, key: _edge_attrs({**old, **attr} if old else attr)}
        self._succ[u][v] = self._pred[v][u] = _key_dict(keyed)
        nx._clear_cache(self)
        return key

    def add_edges_from(self, ebunch_to_add: Any, **attr: Any) -> list:
        """networkx's add_edges_from: (u, v), (u, v, attrs or key) or (u, v, key, attrs)."""
        keys = []
        for e in ebunch_to_add:
            if not 2 <= len(e) <= 4:
                msg = f"Edge tuple {e} must be a 2-tuple, 3-tuple or 4-tuple."
                raise nx.NetworkXError(msg)
            u, v, *rest = e
            key, dd = rest if len(rest) == 2 else (None, rest[0] if rest else {})
            attrs = dict(attr)
            try:
                attrs.update(dd)
            except (TypeError, ValueError):
                if len(e) != 3:
                    raise
                key = dd  # (u, v, key)
            keys.append(self._put_edge(u, v, key, attrs))
        return keys

    def remove_edge(self, u: Any, v: Any, key: Any = None) -> None:
        keyed = self._succ.get(u, {}).get(v)
        if keyed is None:
            msg = f"The edge {u}-{v} is not in the graph."
            raise nx.NetworkXError(msg)
        if key is None:
            key = next(reversed(keyed))  # the last added, as networkx
        elif key not in keyed:
            msg = f"The edge {u}-{v} with key {key} is not in the graph."
            raise nx.NetworkXError(msg)
        if len(keyed) == 1:
            del self._succ[u][v], self._pred[v][u]
        else:
            rest = {k: d for k, d in keyed.items() if k != key}
            self._succ[u][v] = self._pred[v][u] = _key_dict(rest)
        nx._clear_cache(self)

    @property
    def node(self) -> Any:
        """networkx 1.x's G.node, which MO's code reads (graph.node[id] is the attr dict)."""
        return self.nodes

    def own_port_edges(self, nid: Any, side: str) -> dict[int, dict]:
        """Port -> attributes of each edge into (side 'in') or out of ('out') nid that has a
        port number on that side, each its own dict (MO code writes into them: 'bin')."""
        adjacency = self._pred[nid] if side == "in" else self._succ[nid]
        edges = [(other, k) for other, keyed in adjacency.items() for k, d in keyed.items()
                 if side in d]
        own = self.own_edge_attrs
        owned = (own(*((o, nid) if side == "in" else (nid, o)), k) for o, k in edges)
        return {d[side]: d for d in owned}

    def named_edge(self, u: Any, v: Any, key: Any) -> dict:
        """The attributes of op-to-op edge (u, v, key) with its tensor names, as MO's loaders
        put them on each edge (extgen keeps them on the producer's port; MO's code reading
        the edge finds them there too)."""
        attrs = self._succ[u][v][key]
        if "out" not in attrs or "fw_tensor_debug_info" in attrs or any(
                self._node[n].get("kind") == "data" for n in (u, v)):
            return attrs
        ports = self._node[u].get("_out_ports") or {}
        names = (ports.get(attrs["out"]) or {}).get("fw_tensor_debug_info", [])
        attrs = self.own_edge_attrs(u, v, key)
        attrs["fw_tensor_debug_info"] = list(names)
        return attrs

    def own_edge_attrs(self, u: Any, v: Any, key: Any = 0) -> dict:
        """The attributes of edge (u, v, key) as a dict of its own, to write in place."""
        keyed = self._succ[u][v]
        attrs = keyed[key]
        if type(attrs) is not SharedDict and type(keyed) is not SharedDict:
            return attrs
        attrs = dict(attrs)
        self._succ[u][v] = self._pred[v][u] = {**keyed, key: attrs}
        return attrs
