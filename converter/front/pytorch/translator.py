"""ATen op translators: functions that turn one op call of a PyTorch graph into opset ops.
torch.export programs and TorchScript graphs share them (keyed `aten::name`, overloads
together: a translator reads the arguments by their schema names).

    @aten_op("aten::relu")
    def relu(n: TorchNode) -> list[Port]:
        return [n.op("ReLU", [n.tensor("self")])]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.front.pytorch.builder import Input
from converter.front.translator import NodeContext, TranslatorRegistry
from converter.graph.graph import Node
from converter.graph.port import Port
from converter.ops.op import Op

__all__ = ["REGISTRY", "TorchNode", "aten_op"]

_MISSING = object()


class TorchNode(NodeContext):
    """What a translator sees: the call's arguments (tensors as ports) and an op builder."""

    def __init__(self, node: Node) -> None:
        super().__init__(node)
        self.args = dict(node.soft_get("pb", ()))
        self.names = list(self.args)

    @classmethod
    def standard_op(cls, node: Node) -> str | None:
        """'PyTorch op aten::erfinv' for an ATen or prim op the converter lacks."""
        op = node.soft_get("op", "")
        return f"PyTorch op {op}" if op.startswith(("aten::", "prim::")) else None

    def _raw(self, key: str | int) -> Any:
        if isinstance(key, int):
            return self.args[self.names[key]] if key < len(self.names) else _MISSING
        return self.args.get(key, _MISSING)

    def _port(self, value: Input) -> Port:
        return self.node.in_port(value.port).get_source()

    def arg(self, key: str | int, default: Any = None) -> Any:
        """An argument by schema name or position: a port for a tensor (a list of them for a
        tensor list), a Python value otherwise; default when absent or None."""
        value = self._raw(key)
        if value is _MISSING or value is None:
            return default
        if isinstance(value, Input):
            return self._port(value)
        if isinstance(value, list):
            return [self._port(v) if isinstance(v, Input) else v for v in value]
        return value

    def is_tensor(self, key: str | int) -> bool:
        """A tensor argument (not a number, even one computed at run time)."""
        raw = self._raw(key)
        return isinstance(raw, Input) and not raw.number

    def value(self, key: str | int, default: Any = _MISSING) -> Any:
        """A constant argument's value; a tensor there (computed at run time) is refused."""
        value = self.arg(key, None if default is _MISSING else default)
        if isinstance(value, Port) or (isinstance(value, list)
                                       and any(isinstance(v, Port) for v in value)):
            value = self._folded(value)
        if value is None and default is _MISSING:
            self.reject(f"argument '{key}' is not given", "change the model")
        return value

    def _folded(self, value: Any) -> Any:
        """A tensor argument (or list of scalars) that comes straight from a Const, as a value."""
        items = value if isinstance(value, list) else [value]
        out = []
        for item in items:
            if isinstance(item, Port):
                if item.node.soft_get("op") != "Const":
                    self.reject("an argument that must be constant is computed at run time",
                                "give the model static shapes (--input_shape)")
                item = np.asarray(item.node.value).tolist()
            out.append(item)
        return out if isinstance(value, list) else out[0]

    def tensor(self, key: str | int, like: Port | None = None) -> Port:
        """A tensor argument; a Python number there (a Const, or computed at run time) takes
        like's element type."""
        value, raw = self.arg(key), self._raw(key)
        if isinstance(value, Port):
            numeric = isinstance(raw, Input) and raw.number and like is not None
            return self.op("ConvertLike", [value, like]) if numeric else value
        if isinstance(value, list):
            return self.ints(key)
        if value is None:
            self.reject(f"argument '{key}' is not given", "change the model")
        const = self.const(value, _scalar_type(value))
        return const if like is None else self.op("ConvertLike", [const, like])

    def ints(self, key: str | int) -> Port:
        """An int list argument (a shape, or sizes) as one i64 tensor; items computed at run
        time (TorchScript's sizes) are joined in."""
        value = self.arg(key)
        return self.joined(value if isinstance(value, list) else [value])

    def joined(self, value: list) -> Port:
        """Ints and i64 scalars (ports) as one 1-D i64 tensor."""
        if not any(isinstance(v, Port) for v in value):
            return self.const(np.array(value, np.int64).reshape(-1))
        parts = [self.op("Reshape", [self.op("Convert", [v], destination_type=np.dtype(np.int64)),
                                     self.const([1], np.int64)]) if isinstance(v, Port)
                 else self.const([int(v)], np.int64) for v in value]
        return self.op("Concat", parts, axis=0)

    def element_type(self, port: Port, depth: int = 64) -> np.dtype | None:
        """port's element type where the opset ops already built before it tell (TorchScript
        keeps no types), else None."""
        node = port.node
        op = node.soft_get("op")
        if op == "Const":
            return np.asarray(node.value).dtype
        if op == "Parameter":
            return np.dtype(node.element_type)
        cls = Op.builtin_ops.get(op)
        if cls is None or node.has("pb") or depth == 0:
            return None
        for key in ("output_type", "destination_type"):  # ShapeOf, Range, Convert: their own
            if node.has_valid(key):
                return np.dtype(node[key])
        ports = [node.in_port(i) for i in sorted(node.in_ports())]
        types = [self.element_type(p.get_source(), depth - 1) for p in ports
                 if not p.disconnected()]
        if any(t is None for t in types):
            return None
        return cls.infer_types(cls.ir_attrs(node), types)[port.idx]

    def reject_arg(self, key: str, why: str) -> None:
        self.reject(f"argument '{key}' = {self.arg(key)!r}: {why}", "change the model")


def _scalar_type(value: Any) -> type:
    if isinstance(value, bool):
        return np.bool_
    return np.int64 if isinstance(value, int) else np.float32


REGISTRY = TranslatorRegistry(TorchNode, ["converter.front.pytorch.ops"])
aten_op = REGISTRY.op
