"""MO's node-building API of an Op class: construction on a graph, graph-level `infer(node)`,
`update_node_stat`, `create_node` and friends. Only conversion calls it; the graph model
(converter.graph.graph, networkx) is imported when a node is built, so the runtime, which
imports `Op`, never loads it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from converter.errors import ShapeInferenceError
from converter.ir.attrs import typed_attrs
from converter.ops.fold_budget import within_fold_budget

if TYPE_CHECKING:
    from converter.graph.graph import Graph, Node

__all__ = ["NodeBuilder"]


def _input_facts(node: Node) -> list[dict[str, Any]]:
    """The data node attributes (shape, value, data_type) of each connected input of node, by
    port, each read once: what `p.data.get_*()` of `node.in_ports()` reads (nothing in the front
    stage, which has no data nodes)."""
    graph = node.graph
    sources: dict[int, str] = {}
    for u, _, d in graph.in_data(node.id):
        if "in" in d:
            sources.setdefault(d["in"], u)
    front = graph.stage in (None, "front")
    return [{} if front else graph.nodes[sources[i]] for i in sorted(sources)]


_INFER: dict[type, Any] = {}


def _shared_infer(cls: type) -> Any:
    """cls.infer, one object per class for all its nodes (reading a classmethod makes a new
    bound method each time: 64 bytes a node); a replaced infer is picked up."""
    infer = cls.infer
    shared = _INFER.get(cls)
    if shared is not None and shared == infer:
        return shared
    _INFER[cls] = infer
    return infer


class NodeBuilder:
    """Mixin of `Op`: what an op class does with a graph (its contract stays in `Op`)."""

    def __init__(
        self, graph: Graph, attrs1: dict | None = None, attrs2: dict | None = None
    ) -> None:
        self.graph = graph
        cls = type(self)
        self.attrs: dict[str, Any] = {"kind": "op"}
        if cls.op is not None:
            self.attrs.update(
                op=cls.op,
                type=cls.type,
                version=cls.version,
                infer=_shared_infer(cls),
                in_ports_count=cls.in_ports_count,
                out_ports_count=cls.out_ports_count,
            )
            self.attrs.update(cls.defaults)
        self.attrs.update(attrs1 or {})
        self.attrs.update(attrs2 or {})
        if cls.op is not None and self.attrs.get("version") == cls.version:
            self.attrs["version"] = cls.version_for(self.attrs)

    @classmethod
    def ir_attrs(cls, node: Node) -> dict[str, Any]:
        """The node's values of the attributes in attr_types (defaults filled in)."""
        values = {k: node[k] for k in cls.attr_types if node.has_valid(k)}
        return typed_attrs(cls, values, f"node '{node.soft_get('name', node.id)}'")

    # -- graph-level inference (MO's infer) ------------------------------------------------------
    @classmethod
    def infer(cls, node: Node) -> None:
        inputs = _input_facts(node)
        shapes = [d.get("shape") for d in inputs]
        values = [d.get("value") for d in inputs]
        types = [d.get("data_type") for d in inputs]
        attrs = cls.ir_attrs(node)
        name = node.soft_get("name", node.id)
        problem = cls.check_inputs(attrs, shapes, types, values)
        if problem:
            msg = f"node '{name}' ({node.soft_get('type', None) or cls.op}): {problem}"
            raise ShapeInferenceError(msg)
        try:
            out_shapes = cls.infer_shapes(attrs, shapes, values)
            out_types = cls.infer_types(attrs, types)
        except NotImplementedError as err:  # an extension's inference left to fill in
            out_shapes = out_types = None
            unfilled = err
        foldable = values and all(v is not None for v in values) and cls.has_evaluate()
        if foldable and within_fold_budget(cls.op, name, out_shapes, out_types):
            try:
                outs = cls.compute(attrs, values)
            except NotImplementedError:  # an extension's evaluate left to fill in: infer instead
                outs = None
            if outs is not None:
                for i, value in enumerate(outs):
                    node.out_port(i).data.set_value(value)
                    node.out_port(i).data.set_data_type(value.dtype)
                return
        if out_shapes is None:
            raise unfilled
        for i, shape in enumerate(out_shapes):
            port = node.out_port(i).data
            port.set_shape(shape)
            if i < len(out_types):
                port.set_data_type(out_types[i])

    # -- MO node-building API ----------------------------------------------------------------------
    def supported_attrs(self) -> list:
        return list(type(self).attr_types)

    def backend_attrs(self) -> list:
        return self.supported_attrs()

    def get_opset(self) -> str:
        return self.attrs.get("version") or "extension"

    def add_node(self, attrs: dict | None = None) -> Node:
        from converter.graph.graph import Node

        new_attrs = {**self.attrs, **(attrs or {})}
        name = new_attrs.get("name") or new_attrs.get("op") or "node"
        node_id = self.graph.unique_id(name)
        new_attrs.setdefault("name", node_id)
        self.substitute_ie_attrs(new_attrs)
        self.graph.add_node(node_id, **new_attrs)
        node = Node(self.graph, node_id)
        node.update_node()
        return node

    def create_node(
        self, inputs: list | None = None, attrs: dict | None = None, edge_attrs: dict | None = None
    ) -> Node:
        """A new node fed by inputs: each a Node (port 0), (Node, port) or an output Port."""
        from converter.graph.graph import Node

        node = self.add_node(attrs)
        for i, src in enumerate(inputs or []):
            if isinstance(src, tuple):
                src = src[0].out_port(src[1])
            elif isinstance(src, Node):
                src = src.out_port(0)
            src.connect(node.in_port(i), edge_attrs)
        return node

    def create_node_with_data(
        self, inputs: list[Node | None] | None = None, attrs: dict | None = None,
        data_nodes: Any = None, edge_attrs: list[dict] | None = None,
    ) -> Node | list[Node]:
        """Middle stage: a node fed by data nodes (input i: inputs[i], with edge_attrs[i]; None
        leaves port i free); runs infer and returns its output data."""
        node = self.add_node(attrs)
        for i, data in enumerate(inputs or []):
            if data is not None:
                extra = edge_attrs[i] if edge_attrs and i < len(edge_attrs) else {}
                self.graph.add_edge(data.id, node.id, **{**extra, "in": i})
        outs = data_nodes if isinstance(data_nodes, list) else [data_nodes] if data_nodes else []
        for i, data in enumerate(outs):
            self.graph.add_edge(node.id, data.id, out=i)
        if node.has_valid("infer"):
            node.infer(node)
        count = max(1, len(outs), node.soft_get("out_ports_count", 1) or 1)
        result = [node.out_port(i).data_node() for i in range(count)]
        return result[0] if count == 1 else result

    def update_node(self, node: Node, attrs: dict | None = None) -> None:
        new_attrs = {**self.attrs, **(attrs or {})}
        self.substitute_ie_attrs(new_attrs)
        node.attrs().update(new_attrs)
        node.update_node()

    @classmethod
    def update_node_stat(cls, node: Node, attrs: dict | None = None) -> None:
        cls(node.graph, attrs).update_node(node)

    def substitute_ie_attrs(self, new_attrs: dict) -> None:
        """Record which attributes go to the IR (MO keeps them under 'IE')."""
        new_attrs["IE"] = _shared_spec(self.backend_attrs())


class SharedSpec(list):
    """An 'IE' list shared by every node whose op class lists the same attributes: read-only
    (a list per node took 7 MiB on 100k nodes)."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        msg = ("node['IE'] is shared by the nodes of its op and read-only: assign a new list "
               "(node['IE'] = [*node['IE'], ...])")
        raise TypeError(msg)

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __deepcopy__(self, memo: dict) -> SharedSpec:
        return self

    def __reduce__(self) -> tuple:
        return list, (list(self),)


_SPECS: dict[tuple, SharedSpec] = {}


def _shared_spec(spec: list) -> list:
    """The shared list equal to spec (up to a few thousand distinct ones; unhashable items,
    such as a getter made per node, keep spec)."""
    try:
        shared = _SPECS.get(tuple(spec))
    except TypeError:
        return spec
    if shared is None:
        if len(_SPECS) >= 4096:
            return spec
        shared = _SPECS[tuple(spec)] = SharedSpec(spec)
    return shared
