"""ONNX op translators: functions that turn one ONNX node into opset ops.

    @onnx_op("Gemm")
    def gemm(n: OnnxNode) -> list[Port]:
        y = n.op("MatMul", [n.input(0), n.input(1)], transpose_a=bool(n.attr("transA", 0)))
        ...
        return [y]

A translator returns one output port per ONNX output. The registry keeps several versions
per op type (`since=` opset); the newest one not newer than the model's opset is used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from onnx import helper

from converter.graph.graph import Node
from converter.graph.port import Port
from converter.ops.op import Op

__all__ = ["OnnxNode", "Translator", "find_translator", "onnx_op", "translators"]

Translator = Callable[["OnnxNode"], Sequence[Port | None]]
_TRANSLATORS: dict[str, list[tuple[int, Translator]]] = {}


def onnx_op(*op_types: str, since: int = 1) -> Callable[[Translator], Translator]:
    """Register a translator for ONNX op types (`domain::Type` for custom domains)."""

    def register(fn: Translator) -> Translator:
        for op_type in op_types:
            versions = _TRANSLATORS.setdefault(op_type, [])
            versions.append((since, fn))
            versions.sort(key=lambda v: v[0])
        return fn

    return register


def find_translator(op_type: str, opset: int) -> Translator | None:
    for since, fn in reversed(_TRANSLATORS.get(op_type, [])):
        if since <= opset:
            return fn
    return None


def translators() -> dict[str, list[tuple[int, Translator]]]:
    return _TRANSLATORS


class OnnxNode:
    """What a translator sees: the ONNX node's attributes, its input ports and an op builder."""

    def __init__(self, node: Node, opset: int) -> None:
        self.node = node
        self.graph = node.graph
        self.pb = node.pb
        self.opset = opset
        self.name: str = node.soft_get("name", node.id)
        self._attrs = {a.name: a for a in self.pb.attribute}
        self._count = 0

    # -- reading the ONNX node ------------------------------------------------------------------
    @property
    def op_type(self) -> str:
        return self.pb.op_type

    @property
    def num_inputs(self) -> int:
        """Number of ONNX inputs, trailing omitted ones excluded."""
        names = list(self.pb.input)
        while names and not names[-1]:
            names.pop()
        return len(names)

    @property
    def num_outputs(self) -> int:
        return len(self.pb.output)

    def has_attr(self, name: str) -> bool:
        return name in self._attrs

    def attr(self, name: str, default: Any = None) -> Any:
        """The attribute's value (bytes decoded to str, tensors to numpy), or default."""
        a = self._attrs.get(name)
        if a is None:
            return default
        value = helper.get_attribute_value(a)
        if isinstance(value, bytes):
            return value.decode("utf-8")
        if a.type == a.TENSOR:
            from onnx import numpy_helper

            return numpy_helper.to_array(value)
        if isinstance(value, list) and value and isinstance(value[0], bytes):
            return [v.decode("utf-8") for v in value]
        return value

    def input(self, i: int) -> Port | None:
        """Source port of ONNX input i, None when omitted."""
        if i >= len(self.pb.input) or not self.pb.input[i]:
            return None
        return self.node.in_port(i).get_source()

    def has_input(self, i: int) -> bool:
        return self.input(i) is not None

    def const_value(self, i: int) -> np.ndarray | None:
        """The value of input i when it comes straight from a Const, else None."""
        src = self.input(i)
        if src is None or src.node.soft_get("op") != "Const":
            return None
        return np.asarray(src.node.value)

    # -- building opset ops -----------------------------------------------------------------------
    def const(self, value: Any, dtype: Any = None, name: str | None = None) -> Port:
        value = np.asarray(value, dtype=dtype)
        self._count += 1
        node = Op.builtin_ops["Const"](self.graph).create_node(
            attrs={"name": name or f"{self.name}/Const_{self._count}", "value": value}
        )
        return node.out_port(0)

    def op(
        self, type_name: str, inputs: Sequence[Port | np.ndarray | int | float | None],
        name: str | None = None, **attrs: Any,
    ) -> Port:
        """Create op `type_name` fed by inputs (ports, or values that become Consts); port 0."""
        return self.op_node(type_name, inputs, name, **attrs).out_port(0)

    def op_node(
        self, type_name: str, inputs: Sequence[Port | np.ndarray | int | float | None],
        name: str | None = None, **attrs: Any,
    ) -> Node:
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
