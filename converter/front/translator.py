"""What every framework's translators share: a registry of functions per op type (with
versions), the context a translator builds opset ops with, the one way a translator reports a
problem with its node (`n.reject`), and translating a node (running its translator, splicing the
result in).

A translator takes a context and returns one output port per framework output:

    @registry.op("Relu")
    def relu(n):
        if n.attr("alpha") is None:
            n.reject("alpha is not given", "set it in the model")
        return [n.op("ReLU", [n.input(0)])]
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from converter.errors import ConversionError
from converter.graph.graph import Node
from converter.graph.port import Port
from converter.ir.attrs import typed_attrs
from converter.ops.op import Op

__all__ = [
    "KEEP_PB", "NodeContext", "Translator", "TranslatorRegistry", "node_error", "splice",
    "static_rank", "translate",
]

# graph.graph key, set where legacy extension folders join: the op producing a translation's
# first output keeps the framework node's `pb`, as MO's extracted nodes kept theirs (a legacy
# FrontReplacementOp reads its attributes: onnx_attr(node, 'alpha', 'f'))
KEEP_PB = "keep_framework_pb"

Translator = Callable[[Any], Sequence[Port | None]]
DEFAULT_FIX = "change the model, or handle the node with an extension (--extensions)"


class TranslatorRegistry:
    """One framework's translators per op type; several versions each (`since`), newest that fits
    wins. `context` is the framework's NodeContext class (it reads a node's registry key);
    `modules` are imported on first use, which registers the built-in translators."""

    def __init__(self, context: type[NodeContext], modules: Sequence[str] = ()) -> None:
        self.context = context
        self._modules = list(modules)
        self._importing = threading.RLock()  # two threads converting at once both see them all
        self._by_type: dict[str, list[tuple[int, Translator]]] = {}

    def op(self, *op_types: str, since: int = 1) -> Callable[[Translator], Translator]:
        """Decorator: register a translator for op types (aliases share one function)."""
        def register(fn: Translator) -> Translator:
            for op_type in op_types:
                versions = self._by_type.setdefault(op_type, [])
                versions.append((since, fn))
                versions.sort(key=lambda v: v[0])
            return fn

        return register

    def find(self, op_type: str, version: int = 1 << 30) -> Translator | None:
        self._import()
        for since, fn in reversed(self._by_type.get(op_type, [])):
            if since <= version:
                return fn
        return None

    def for_node(self, node: Node) -> Translator | None:
        """The translator of a framework node, None when it has none."""
        op_type, version = self.context.key(node)
        return None if op_type is None else self.find(op_type, version)

    def types(self) -> list[str]:
        self._import()
        return sorted(self._by_type)

    def _import(self) -> None:
        with self._importing:
            while self._modules:
                importlib.import_module(self._modules.pop(0))


def static_rank(port: Port) -> int | None:
    """The rank of a tensor known before inference: a Const's, or a Parameter's with a shape."""
    node = port.node
    if node.soft_get("op") == "Const":
        return np.ndim(node.value)
    shape = node.soft_get("shape", None) if node.soft_get("op") == "Parameter" else None
    return None if shape is None else len(shape)


def node_error(node: Node, problem: str, fix: str, op_type: str | None = None) -> ConversionError:
    """The error for a problem with one framework node: "<op> node '<name>': <problem>; <fix>"."""
    op_type = op_type or node.soft_get("op", "?")
    return ConversionError(f"{op_type} node '{node.soft_get('name', node.id)}': {problem}; {fix}")


class NodeContext:
    """A framework node as its translator sees it: inputs as ports, and an opset-op builder.
    Framework subclasses add attribute access (`attr`) and may override `key` and `op_type`."""

    num_outputs: int | None = None  # outputs a translator's result is cut to (None: all)

    def __init__(self, node: Node) -> None:
        self.node = node
        self.graph = node.graph
        self.name: str = node.soft_get("name", node.id)
        self._count = 0

    @classmethod
    def key(cls, node: Node) -> tuple[str | None, int]:
        """node's op type in the registry (None: no built-in translation) and its version."""
        return node.soft_get("op", None), 1 << 30

    @classmethod
    def extractor_keys(cls, node: Node) -> list[str]:
        """The op names a user extractor (or Op) for node may be registered under, first wins."""
        return [node.soft_get("op", None)]

    @classmethod
    def standard_op(cls, node: Node) -> str | None:
        """How to name node's op when it is a standard op of the framework that the converter
        lacks ('ONNX op LSTM (opset 14)'); None for a custom op (the default)."""
        return None

    @property
    def op_type(self) -> str:
        return self.node.soft_get("op", "?")

    def reject(self, problem: str, fix: str = DEFAULT_FIX) -> NoReturn:
        """Stop the conversion: this node has a problem the user must solve (exit status 2)."""
        raise node_error(self.node, problem, fix, self.op_type)

    @property
    def num_inputs(self) -> int:
        return len([p for p in self.node.in_ports().values() if not p.disconnected()])

    def input(self, i: int) -> Port | None:
        """Source port of input i, None when absent."""
        port = self.node.in_port(i)
        return None if port.disconnected() else port.get_source()

    def has_input(self, i: int) -> bool:
        return self.input(i) is not None

    def static_rank(self, i: int) -> int | None:
        """Rank of input i when known before inference (see static_rank)."""
        src = self.input(i)
        return None if src is None else static_rank(src)

    def const_value(self, i: int) -> np.ndarray | None:
        """The value of input i when it comes straight from a Const, else None."""
        src = self.input(i)
        if src is None or src.node.soft_get("op") != "Const":
            return None
        return np.asarray(src.node.value)

    def const(self, value: Any, dtype: Any = None, name: str | None = None) -> Port:
        value = np.asarray(value, dtype=dtype)
        self._count += 1
        node = Op.builtin_ops["Const"](self.graph).create_node(
            attrs={"name": name or f"{self.name}/Const_{self._count}", "value": value}
        )
        return node.out_port(0)

    def op(self, type_name: str, inputs: Sequence[Port | np.ndarray | int | float | None],
           name: str | None = None, **attrs: Any) -> Port:
        """Opset op `type_name` fed by inputs (ports, or values that become Consts); its port 0."""
        return self.op_node(type_name, inputs, name, **attrs).out_port(0)

    def folded(self, type_name: str, inputs: Sequence[Port | np.ndarray], **attrs: Any) -> Port:
        """op(), computed at once by the op's own evaluate when every input is a constant (so
        reshaped or transposed weights stay one Const in the IR)."""
        values = [_constant(v) for v in inputs]
        if any(v is None for v in values):
            return self.op(type_name, inputs, **attrs)
        cls = Op.builtin_ops[type_name]
        return self.const(cls.compute(typed_attrs(cls, attrs, self.name), values)[0])

    def grouped_weights(self, w: Port, group: int, rank: int) -> Port:
        """Convolution weights [G*A, B, *k] (rank `rank`) in GroupConvolution's [G, A, B, *k]."""
        lifted = self.folded("Unsqueeze", [w, np.array([0], np.int64)])
        shape = np.array([group, -1] + [0] * (rank - 1), np.int64)
        return self.folded("Reshape", [lifted, shape], special_zero=True)

    def op_node(self, type_name: str, inputs: Sequence[Port | np.ndarray | int | float | None],
                name: str | None = None, **attrs: Any) -> Node:
        """Like op(), returning the node (for ops with several outputs)."""
        cls = Op.builtin_ops[type_name]
        self._count += 1
        node = cls(self.graph).create_node(
            attrs={"name": name or f"{self.name}/{type_name}_{self._count}", **attrs}
        )
        for i, src in enumerate(inputs):
            if src is None:
                continue
            if not isinstance(src, Port):
                src = self.const(src)
            src.connect(node.in_port(i))
        return node


def _constant(value: Port | np.ndarray) -> np.ndarray | None:
    if not isinstance(value, Port):
        return np.asarray(value)
    return np.asarray(value.node.value) if value.node.soft_get("op") == "Const" else None


def translate(node: Node, fn: Translator, context: type[NodeContext]) -> None:
    """Replace node by the ops translator fn builds in a `context` of it."""
    ctx = context(node)
    splice(node, list(fn(ctx))[: ctx.num_outputs], ctx.name)


def splice(node: Node, outputs: Sequence[Port | None], name: str) -> None:
    """Move node's consumers (and tensor names) onto the translator's outputs, drop node; the
    op producing the first output takes the framework node's name."""
    prefix, renamed = name + "/", False
    first = next((port for port in outputs if port is not None), None)
    if (first is not None and node.graph.graph.get(KEEP_PB) and node.has_valid("pb")
            and not first.node.has_valid("pb") and first.node.soft_get("op") != "Const"):
        first.node["pb"] = node["pb"]
    for i, port in enumerate(outputs):
        if port is None or i not in node.out_ports():
            continue
        node.out_port(i).get_connection().set_source(port)
        if not renamed and port.node.soft_get("name", "").startswith(prefix):
            port.node["name"] = name
            renamed = True
    node.graph.remove_node(node.id)
