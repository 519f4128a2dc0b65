"""Op: one definition per operation, used by the converter and the runtime alike.

A built-in op declares its IR identity (`type`, `version`), its attribute schema (`attr_types`,
`defaults`) and three pure functions over plain values:

- `infer_shapes(attrs, shapes, values) -> shapes` (values are None when not constant)
- `infer_types(attrs, types) -> types`
- `evaluate(attrs, inputs) -> outputs` (numpy)

`infer(node)` wires those to the graph: constant inputs are folded with `evaluate`, otherwise
shapes and types are inferred. Extensions written for MO may override `infer` directly and use
`mandatory_props`, `supported_attrs`/`backend_attrs`, `update_node_stat` as they always did.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from converter.errors import ExtensionError
from converter.graph.graph import Graph, Node
from converter.graph.shape import Shape

__all__ = ["Op", "ir_op_class"]

_IR_REGISTRY: dict[tuple[str, str], type[Op]] = {}


def ir_op_class(type_: str, version: str) -> type[Op] | None:
    """The op class for an IR layer's type/version (any version of the type as a fallback)."""
    cls = _IR_REGISTRY.get((type_, version))
    if cls is not None:
        return cls
    same_type = [c for (t, _), c in _IR_REGISTRY.items() if t == type_]
    return same_type[-1] if same_type and version.startswith("opset") else None


class Op:
    """Base of every operation class (built-in and user extension)."""

    op: ClassVar[str | None] = None
    type: ClassVar[str | None] = None
    version: ClassVar[str | None] = None
    enabled: ClassVar[bool] = False
    in_ports_count: ClassVar[int | None] = None
    out_ports_count: ClassVar[int] = 1
    attr_types: ClassVar[dict[str, str]] = {}
    defaults: ClassVar[dict[str, Any]] = {}

    registered_ops: ClassVar[dict[str, type[Op]]] = {}
    builtin_ops: ClassVar[dict[str, type[Op]]] = {}  # converter.ops only: what translators build
    registered_cls: ClassVar[list[type[Op]]] = []
    excluded_classes: ClassVar[list[type[Op]]] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Op.registered_cls.append(cls)
        if cls.__dict__.get("op"):
            Op.registered_ops[cls.op] = cls
            if cls.__module__.startswith("converter.ops."):
                Op.builtin_ops[cls.op] = cls
        if cls.__dict__.get("type") and cls.version:
            _IR_REGISTRY[(cls.type, cls.version)] = cls

    def __init__(self, graph: Graph, attrs1: dict | None = None, attrs2: dict | None = None) -> None:
        self.graph = graph
        cls = type(self)
        self.attrs: dict[str, Any] = {"kind": "op"}
        if cls.op is not None:
            self.attrs.update(
                op=cls.op,
                type=cls.type,
                version=cls.version,
                infer=cls.infer,
                in_ports_count=cls.in_ports_count,
                out_ports_count=cls.out_ports_count,
            )
            self.attrs.update(cls.defaults)
        self.attrs.update(attrs1 or {})
        self.attrs.update(attrs2 or {})

    # -- pure definition (override in built-in ops) -----------------------------------------
    @classmethod
    def infer_shapes(
        cls, attrs: dict[str, Any], shapes: list[Shape | None], values: list[np.ndarray | None]
    ) -> list[Shape | None]:
        return [shapes[0]]

    @classmethod
    def infer_types(cls, attrs: dict[str, Any], types: list[np.dtype]) -> list[np.dtype]:
        return [types[0]]

    @classmethod
    def evaluate(cls, attrs: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
        raise NotImplementedError

    @classmethod
    def has_evaluate(cls) -> bool:
        return cls.evaluate.__func__ is not Op.evaluate.__func__

    @classmethod
    def compute(cls, attrs: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
        """evaluate(), with each output cast to the type inference says it has."""
        outs = cls.evaluate(attrs, inputs)
        types = cls.infer_types(attrs, [np.asarray(x).dtype for x in inputs])
        return [
            np.asarray(o) if i >= len(types) or types[i] is None
            else np.asarray(o).astype(types[i], copy=False)
            for i, o in enumerate(outs)
        ]

    @classmethod
    def ir_attrs(cls, node: Node) -> dict[str, Any]:
        """The node's values of the attributes in attr_types (defaults filled in)."""
        out = dict(cls.defaults)
        for k in cls.attr_types:
            if node.has_valid(k):
                out[k] = node[k]
        return out

    # -- graph-level inference (MO's infer) ------------------------------------------------------
    @classmethod
    def infer(cls, node: Node) -> None:
        ports = [p for p in node.in_ports().values() if not p.disconnected()]
        shapes = [p.data.get_shape() for p in ports]
        values = [p.data.get_value() for p in ports]
        types = [p.data.get_data_type() for p in ports]
        attrs = cls.ir_attrs(node)
        if values and all(v is not None for v in values) and cls.has_evaluate():
            try:
                outs = cls.compute(attrs, values)
            except NotImplementedError:  # an extension's evaluate left to fill in: infer instead
                outs = None
            if outs is not None:
                for i, value in enumerate(outs):
                    node.out_port(i).data.set_value(value)
                    node.out_port(i).data.set_data_type(value.dtype)
                return
        out_shapes = cls.infer_shapes(attrs, shapes, values)
        out_types = cls.infer_types(attrs, types)
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
        node = self.add_node(attrs)
        for i, src in enumerate(inputs or []):
            if isinstance(src, tuple):
                src = src[0].out_port(src[1])
            elif isinstance(src, Node):
                src = src.out_port(0)
            src.connect(node.in_port(i), edge_attrs)
        return node

    def create_node_with_data(
        self, inputs: list[Node], attrs: dict | None = None, data_nodes: Any = None,
        edge_attrs: dict | None = None,
    ) -> Node | list[Node]:
        """Middle stage: a node fed by data nodes; runs infer and returns its output data."""
        node = self.add_node(attrs)
        for i, data in enumerate(inputs):
            self.graph.add_edge(data.id, node.id, **{**(edge_attrs or {}), "in": i})
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
        new_attrs["IE"] = self.backend_attrs()

    @staticmethod
    def get_op_class_by_name(name: str) -> type[Op]:
        try:
            return Op.registered_ops[name]
        except KeyError:
            msg = f"no Op class is registered for op '{name}'; is its ops/ module in an --extensions folder?"
            raise ExtensionError(msg) from None
