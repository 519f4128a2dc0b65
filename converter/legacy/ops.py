"""The legacy `Op` base (mo.ops.op) and the MO names of built-in ops.

A legacy op class passes its `mandatory_props` dict as attrs1, lists its IR attributes in
`supported_attrs()`/`backend_attrs()` (each a name, `(ir_name, callable)` or `(ir_name,
node_attr)`), and writes an `infer(node)` that sees shapes as MO did: int64 numpy arrays,
masked where dynamic. `legacy_infer` gives it that view.
"""

from __future__ import annotations

import functools
from collections import namedtuple
from typing import Any

import numpy as np

from converter.errors import ExtensionError
from converter.graph.graph import Graph, Node
from converter.ops import op as _op

__all__ = [
    "MO_OP_NAMES", "Op", "PermuteAttrs", "PermuteInputs", "builtin_op", "legacy_infer",
]

# MO's op name -> the converter's, where they differ (pattern matching, get_op_class_by_name)
MO_OP_NAMES = {
    "Mul": "Multiply", "Sub": "Subtract", "Div": "Divide", "Pow": "Power", "SoftMax": "Softmax",
    "Cast": "Convert", "Shape": "ShapeOf", "AttributedClamp": "Clamp", "Gelu": "Gelu",
    "GeLU": "Gelu", "Relu": "ReLU", "LeakyReLU": "PReLU",
}


def builtin_op(name: str) -> type[_op.Op]:
    """The built-in op class for an op name, MO's names included."""
    import converter.ops  # noqa: F401  (registers the built-ins)

    return _op.Op.builtin_ops[MO_OP_NAMES.get(name, name)]


def _is_legacy_fn(fn: Any) -> bool:
    func = getattr(fn, "__func__", fn)
    module = getattr(func, "__module__", None) or ""
    return not module.startswith("converter.") or module.startswith("converter.legacy.")


def legacy_infer(fn: Any) -> Any:
    """Wrap an MO infer function: input shapes are MO arrays while it runs, tuples after."""
    if fn is None or getattr(fn, "legacy_shapes", False) or not _is_legacy_fn(fn):
        return fn
    from converter.legacy.shapes import shape_array

    @functools.wraps(fn)
    def infer(node: Node) -> None:
        saved = {}
        for port in node.in_ports().values():
            data = port.data_node() if not port.disconnected() else None
            if data is not None and isinstance(data.soft_get("shape", None), tuple):
                saved[data.id] = data["shape"]
                data["shape"] = shape_array(data["shape"])
        try:
            fn(node)
            if node.has_valid("type_infer") and _is_legacy_fn(node.type_infer):
                node.type_infer(node)
        finally:
            for data_id, shape in saved.items():
                if data_id in node.graph:
                    node.graph.nodes[data_id]["shape"] = shape

    infer.legacy_shapes = True
    return infer


class Op(_op.Op):
    """mo.ops.op.Op: `__init__(graph, attrs1, attrs2)`, the later dict winning."""

    def __init__(
        self, graph: Graph, attrs1: dict | None = None, attrs2: dict | None = None
    ) -> None:
        super().__init__(graph, attrs1, attrs2)
        if self.attrs.get("version") is None and self.attrs.get("type") is not None:
            self.attrs["version"] = "extension"
        if "infer" in self.attrs:
            self.attrs["infer"] = legacy_infer(self.attrs["infer"])

    def supported_attrs(self) -> list:
        return []

    @staticmethod
    def get_op_class_by_name(name: str) -> type[_op.Op]:
        if name in _op.Op.registered_ops:
            return _op.Op.registered_ops[name]
        try:
            return builtin_op(name)
        except KeyError:
            return _op.Op.get_op_class_by_name(name)

    @staticmethod
    def normalize_outputs(node: Node) -> None:
        """A Result (kept in the IR) on each unconnected port of out_ports_count."""
        if not node.has_valid("out_ports_count") or len(node.out_edges()) >= node.out_ports_count:
            return
        for p in range(node.out_ports_count):
            if p not in node.out_ports():
                node.add_output_port(p)
            if node.out_port(p).disconnected():
                result = builtin_op("Result")(node.graph, {
                    "name": f"{node.soft_get('name', node.id)}/Fake_output_{p}/",
                    "keep_output_port": True}).create_node()
                node.out_port(p).connect(result.in_port(0))

    @staticmethod
    def create_data_node(graph: Graph, op_node: Node, attrs: dict | None = None,
                         edge_attrs: dict | None = None, out_port: int = 0) -> Node:
        data = op_node.out_port(out_port).data_node()
        data.attrs().update(attrs or {})
        return data

    @staticmethod
    def create_input_data_node(
        graph: Graph, name: str, value: np.ndarray, attrs: dict | None = None
    ) -> Node:
        data_id = graph.unique_id(name)
        value = np.array(value)
        node_attrs = {"kind": "data", "name": data_id, "value": value,
                      "shape": tuple(value.shape), "data_type": value.dtype}
        node_attrs.update(attrs or {})  # as in MO, the given attrs win (a copied node's too)
        graph.add_node(data_id, **node_attrs)
        return Node(graph, data_id)


_op.Op.excluded_classes.append(Op)


class PermuteAttrs:
    """Minimal MO PermuteAttrs: records which attributes follow a layout permutation. The
    converter does not permute legacy ops' attributes; the record is kept on the node, and
    set_permutation refuses on a channels-last model, where MO would have applied it."""

    Permutation = namedtuple("Permutation", ["perm", "inv"])
    Attr = namedtuple("Attr", ["name", "port", "func"])

    def __init__(self) -> None:
        self.attrs: dict[str, PermuteAttrs.Attr] = {}

    def update_attrs(self, attrs: list) -> PermuteAttrs:
        for name, port, *func in attrs:
            self.attrs[name] = PermuteAttrs.Attr(name, port, func[0] if func else None)
        return self

    @staticmethod
    def create_permute_attrs(node: Node, attrs: list | None = None) -> None:
        if not node.has_valid("permute_attrs"):
            node["permute_attrs"] = PermuteAttrs()
        node["permute_attrs"].update_attrs(attrs or [])

    @staticmethod
    def set_permutation(node1: Node, node2: Node, permutation: Any, override: bool = False) -> None:
        _refuse_on_nhwc(node1, "PermuteAttrs.set_permutation")

    @staticmethod
    def get_nhwc_to_nchw_permutation(dims_number: int) -> PermuteAttrs.Permutation:
        if dims_number < 3:
            perm = list(range(dims_number))
        else:
            perm = [0, dims_number - 1, *range(1, dims_number - 1)]
        return PermuteAttrs.Permutation(np.array(perm, np.int64), np.argsort(perm).astype(np.int64))

    @staticmethod
    def get_nchw_to_nhwc_permutation(dims_number: int) -> PermuteAttrs.Permutation:
        p = PermuteAttrs.get_nhwc_to_nchw_permutation(dims_number)
        return PermuteAttrs.Permutation(p.inv, p.perm)


class PermuteInputs:
    """Minimal MO PermuteInputs: an input permutation, which MO applied only when it changed a
    channels-last model's layout, is refused there and changes nothing elsewhere, as in MO."""

    def set_input_permutation(
        self, node1: Node, node2: Node, port_info: str, permutation_rule: str,
        shape_check_rule: str = "rank",
    ) -> None:
        _refuse_on_nhwc(node1, "PermuteInputs.set_input_permutation")


def _refuse_on_nhwc(node: Node, name: str) -> None:
    """MO applied these permutations when it changed an NHWC model's layout; extgen's layout
    change does not, so on such a model the call would silently do nothing: refuse. On an NCHW
    model MO's layout change did not run either, and the call changes nothing, as in MO."""
    if node.graph.graph.get("layout") == "NHWC":
        from converter.legacy.importer import caller

        msg = (f"{caller()}calls MO's {name} on a channels-last model; extgen's layout change "
               "does not apply such permutations, so it is not implemented: permute the "
               "attribute or input in your own pass after the layout change")
        raise ExtensionError(msg)
