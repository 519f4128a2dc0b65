"""The torch.library custom ops a PyTorch model file calls, for `extgen check`: a torch.export
program (.pt2: its graph is JSON, read without torch) or a TorchScript archive (.pt: its code,
read as Python source; argument names from the op's schema when torch knows the op here).

Every call's tensors are the op's inputs and its other arguments (constants) its attributes, in
the call's order, as the generated mappings read them (framework_types.pytorch).
"""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path
from typing import Any

from converter.errors import InputFileError, ModelFormatError
from converter.framework_names import SUFFIXES
from extgen.model_ops import UnknownOp

__all__ = ["TORCH_SUFFIXES", "find_torch_custom_ops"]

TORCH_SUFFIXES = SUFFIXES["pytorch"]  # the files the converter reads as PyTorch
_BUILT_IN = ("aten", "prim", "quantized", "_operator", "higher_order")
# a .pt2 argument's kind -> how its value is held
_VALUES = ("as_float", "as_int", "as_bool", "as_string", "as_ints", "as_floats", "as_bools")


def find_torch_custom_ops(model: Path) -> list[UnknownOp]:
    """The custom ops (not aten/prim) the model's graph calls, one entry per op."""
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
            found = _exported(model, archive, graphs)
        else:
            found = _scripted(model, archive, [n for n in names if "/code/" in n
                                                and n.endswith(".py")])
    return sorted(found.values(), key=lambda op: op.op_type)


def _entry(found: dict[str, UnknownOp], op_type: str, node: str, inputs: int,
           outputs: int) -> UnknownOp:
    entry = found.setdefault(op_type, UnknownOp("pytorch", op_type))
    entry.nodes.append(node)
    entry.inputs, entry.outputs = max(entry.inputs, inputs), max(entry.outputs, outputs)
    return entry


def _exported(model: Path, archive: zipfile.ZipFile, graphs: list[str]) -> dict[str, UnknownOp]:
    """From a torch.export program's graph: op target torch.ops.<ns>.<op>.<overload>."""
    if not graphs:
        raise ModelFormatError(f"{model}: no models/model.json (not a torch.export.save archive)")
    try:
        graph = json.loads(archive.read(graphs[0]))["graph_module"]["graph"]
        nodes = list(graph["nodes"])
    except (KeyError, TypeError, ValueError, UnicodeDecodeError):
        msg = f"{model}: its torch.export graph cannot be read (corrupt or a newer format)"
        raise ModelFormatError(msg) from None
    found: dict[str, UnknownOp] = {}
    for node in nodes:
        parts = str(node.get("target", "")).split(".")
        if len(parts) != 5 or parts[:2] != ["torch", "ops"] or parts[2] in _BUILT_IN:
            continue
        args = node.get("inputs") or []
        tensors = [a for a in args if "as_tensor" in (a.get("arg") or {})]
        entry = _entry(found, f"{parts[2]}::{parts[3]}", str(node.get("name", "?")),
                       len(tensors), len(node.get("outputs") or []) or 1)
        for arg in args:
            value = arg.get("arg") or {}
            kind = next((k for k in _VALUES if k in value), None)
            if kind is not None:
                entry.attributes.setdefault(str(arg.get("name")), value[kind])
    return found


def _scripted(model: Path, archive: zipfile.ZipFile, sources: list[str]) -> dict[str, UnknownOp]:
    """From a TorchScript archive's code: calls `ops.<ns>.<op>(...)`."""
    if not sources:
        raise ModelFormatError(f"{model}: no code/ in the archive (not a TorchScript file)")
    found: dict[str, UnknownOp] = {}
    for source in sources:
        try:
            tree = ast.parse(archive.read(source).decode("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            raise ModelFormatError(f"{model}: its TorchScript code cannot be read") from None
        for call in ast.walk(tree):
            op_type = _custom_call(call)
            if op_type is None:
                continue
            literals = [(k, _literal(a)) for k, a in enumerate(call.args)]
            tensors = sum(value is None for _, value in literals)
            entry = _entry(found, op_type, f"{Path(source).stem}:{call.lineno}", tensors, 1)
            names = _argument_names(op_type)
            for k, value in literals:
                if value is not None:
                    entry.attributes.setdefault(names[k] if k < len(names) else f"arg{k}", value)
    return found


def _custom_call(node: ast.AST) -> str | None:
    """'ns::op' for a call ops.<ns>.<op>(...) whose namespace is not PyTorch's own."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    ns = node.func.value
    if (isinstance(ns, ast.Attribute) and isinstance(ns.value, ast.Name)
            and ns.value.id == "ops" and ns.attr not in _BUILT_IN):
        return f"{ns.attr}::{node.func.attr}"
    return None


def _literal(node: ast.AST) -> Any:
    """A constant argument's value (number, bool, string, list of them), else None."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None
    return value if isinstance(value, (int, float, str, bool, list)) else None


def _argument_names(op_type: str) -> list[str]:
    """The op's argument names from its schema when torch is installed and knows the op here;
    else none (then arg<k>)."""
    try:
        import torch

        schemas = torch._C._jit_get_schemas_for_operator(op_type)
    except Exception:  # noqa: BLE001  (no torch, or an op this process has not registered)
        return []
    return [a.name for a in schemas[0].arguments] if schemas else []
