"""The torch.library custom-op calls a PyTorch file holds, read without torch: a torch.export
program's graph (.pt2: JSON) or a TorchScript archive's code (read as Python source).

Each call lists its arguments in order as (name, schema type, value): tensors have no value;
others are constants. A .pt2 names them and records each output's sizes and dtype; TorchScript
code has neither, so its arguments are arg0, arg1, ... (torch_ops names them from the schema
when torch knows the op) and its one output unrecorded."""

from __future__ import annotations

import ast
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from converter.errors import InputFileError, ModelFormatError

__all__ = ["BUILT_IN", "CustomCall", "custom_calls"]

BUILT_IN = ("aten", "prim", "quantized", "_operator", "higher_order")
# a .pt2 argument's kind -> its schema type (tensors: no value)
_KINDS = {"as_tensor": "Tensor", "as_float": "float", "as_int": "int", "as_bool": "bool",
          "as_string": "str", "as_ints": "int[]", "as_floats": "float[]", "as_bools": "bool[]",
          "as_tensors": "Tensor[]"}


@dataclass
class CustomCall:
    op_type: str  # ns::op
    node: str  # the node's name, or file:line in TorchScript code
    arguments: list[tuple[str, str, Any]] = field(default_factory=list)
    outputs: list[tuple[list[int], int] | None] = field(default_factory=lambda: [None])

    @property
    def tensors(self) -> int:
        return sum(kind == "Tensor" for _, kind, _ in self.arguments)


def custom_calls(model: Path) -> list[CustomCall]:
    """Every custom-op call in the model's graph, in order."""
    if not model.is_file():
        raise InputFileError(f"{model}: no such model file")
    try:
        archive = zipfile.ZipFile(model)
    except (zipfile.BadZipFile, OSError):
        msg = f"{model}: not a PyTorch archive (torch.export.save or TorchScript's save write one)"
        raise ModelFormatError(msg) from None
    with archive:
        names = archive.namelist()
        graphs = [n for n in names if n.endswith("models/model.json")]
        if model.suffix == ".pt2" or graphs:
            return _exported(model, archive, graphs)
        return _scripted(model, archive, [n for n in names if "/code/" in n
                                          and n.endswith(".py")])


def _exported(model: Path, archive: zipfile.ZipFile, graphs: list[str]) -> list[CustomCall]:
    """From a torch.export program's graph: op target torch.ops.<ns>.<op>.<overload>."""
    if not graphs:
        raise ModelFormatError(f"{model}: no models/model.json (not a torch.export.save archive)")
    try:
        graph = json.loads(archive.read(graphs[0]))["graph_module"]["graph"]
        nodes, tensors = list(graph["nodes"]), dict(graph.get("tensor_values") or {})
    except (KeyError, TypeError, ValueError, UnicodeDecodeError):
        msg = f"{model}: its torch.export graph cannot be read (corrupt or a newer format)"
        raise ModelFormatError(msg) from None
    calls = []
    for node in nodes:
        parts = str(node.get("target", "")).split(".")
        if len(parts) != 5 or parts[:2] != ["torch", "ops"] or parts[2] in BUILT_IN:
            continue
        call = CustomCall(f"{parts[2]}::{parts[3]}", str(node.get("name", "?")), outputs=[])
        for arg in node.get("inputs") or []:
            value = arg.get("arg") or {}
            kind = next((k for k in _KINDS if k in value), None)
            if kind is not None:
                call.arguments.append((str(arg.get("name")), _KINDS[kind],
                                       None if kind == "as_tensor" else value[kind]))
        for out in node.get("outputs") or [{}]:
            meta = tensors.get(str((out.get("as_tensor") or {}).get("name")))
            call.outputs.append(None if meta is None else (
                [d.get("as_int", -1) for d in meta.get("sizes", [])], meta.get("dtype", 0)))
        calls.append(call)
    return calls


def _scripted(model: Path, archive: zipfile.ZipFile, sources: list[str]) -> list[CustomCall]:
    """From a TorchScript archive's code: calls `ops.<ns>.<op>(...)`."""
    if not sources:
        raise ModelFormatError(f"{model}: no code/ in the archive (not a TorchScript file)")
    calls = []
    for source in sources:
        try:
            tree = ast.parse(archive.read(source).decode("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            raise ModelFormatError(f"{model}: its TorchScript code cannot be read") from None
        for node in ast.walk(tree):
            op_type = _custom_call(node)
            if op_type is not None:
                arguments = [(f"arg{k}", *_typed(a)) for k, a in enumerate(node.args)]
                calls.append(CustomCall(op_type, f"{Path(source).stem}:{node.lineno}",
                                        arguments))
    return calls


def _custom_call(node: ast.AST) -> str | None:
    """'ns::op' for a call ops.<ns>.<op>(...) whose namespace is not PyTorch's own."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    ns = node.func.value
    if (isinstance(ns, ast.Attribute) and isinstance(ns.value, ast.Name)
            and ns.value.id == "ops" and ns.attr not in BUILT_IN):
        return f"{ns.attr}::{node.func.attr}"
    return None


def _typed(node: ast.AST) -> tuple[str, Any]:
    """A call argument's schema type and value: a constant (number, bool, string, list of
    numbers), else a tensor."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return "Tensor", None
    for kind, cls in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if isinstance(value, cls):
            return kind, value
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
        return ("int[]" if all(isinstance(v, int) for v in value) else "float[]"), value
    return "Tensor", None
