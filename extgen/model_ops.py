"""What a model holds that the converter cannot handle: per unknown op type, its nodes, their
input/output counts and the attributes seen on them, and a ready generator config for it."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from converter import frameworks
from converter.extensions import extension_scope, load_extension_dirs
from converter.front.extractor import extract_nodes, unsupported_nodes
from converter.options import ConvertOptions
from extgen.generator.targets import TARGETS, extractor_target

__all__ = ["UnknownOp", "config_for", "find_unknown_ops"]



@dataclass
class UnknownOp:
    framework: str
    op_type: str
    nodes: list[str] = field(default_factory=list)
    inputs: int = 0
    outputs: int = 0
    attributes: dict[str, Any] = field(default_factory=dict)


def _attr_type(value: Any) -> str | None:
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)) and value:
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
            return "int_list"
        if all(isinstance(v, (int, float, np.number)) for v in value):
            return "float_list"
    return None


def find_unknown_ops(model: Path, framework: str | None = None,
                     extensions: list[Path] | None = None, **options: Any) -> list[UnknownOp]:
    """Load and extract the model (with extensions) and report the ops left unsupported."""
    opts = ConvertOptions(Path(model), framework=framework, extensions=list(extensions or []), **options)
    fw = frameworks.resolve(opts.input_model, opts.framework)
    found: dict[str, UnknownOp] = {}
    with extension_scope():
        load_extension_dirs(opts.extensions, fw.name)
        graph = fw.read(opts)
        extract_nodes(graph, fw.translators)
        for node in unsupported_nodes(graph):
            entry = found.setdefault(node.op, UnknownOp(fw.name, node.op))
            entry.nodes.append(node.soft_get("name", node.id))
            entry.inputs = max(entry.inputs, len(node.in_ports()))
            entry.outputs = max(entry.outputs, len(node.out_ports()))
            for key, value in (fw.node_attrs(node) if fw.node_attrs else {}).items():
                entry.attributes.setdefault(key, value)
    return sorted(found.values(), key=lambda u: u.op_type)


def _valid(name: str) -> bool:
    from pydantic import ValidationError

    try:
        _identifier_adapter().validate_python(name)
    except ValidationError:
        return False
    return True


@functools.cache
def _identifier_adapter():
    from pydantic import TypeAdapter

    from extgen.generator.config import Identifier

    return TypeAdapter(Identifier)


def _identifier(op_type: str) -> str:
    name = re.sub(r"\W", "_", op_type.rpartition("::")[2].rpartition(".")[2])
    name = name if name and not name[0].isdigit() else f"Op_{name}"
    return name[:1].upper() + name[1:]


def config_for(op: UnknownOp) -> dict[str, Any]:
    """A generator config (JSON-ready) for one unknown op: every target, its attributes typed
    from the values seen, shape same as input 0 (edit when it changes shape)."""
    attrs = []
    for key, value in op.attributes.items():
        kind = _attr_type(value)
        if kind is None:
            continue
        default = value.tolist() if isinstance(value, np.ndarray) else value
        name = key if _valid(key) else re.sub(r"\W", "_", key) + "_"
        entry = {"name": name, "type": kind, "default": list(default) if isinstance(default, tuple) else default}
        if name != key:
            entry["framework_name"] = key
        if _valid(name):
            attrs.append(entry)
    return {
        "targets": [extractor_target(op.framework),
                    *(name for name, spec in TARGETS.items() if spec.framework is None)],
        "ops": [{
            "name": _identifier(op.op_type),
            "framework_types": {op.framework: op.op_type},
            "inputs": [{"name": f"x{i}" if op.inputs > 1 else "x"} for i in range(max(1, op.inputs))],
            "outputs": [{"name": f"y{i}" if op.outputs > 1 else "y"} for i in range(max(1, op.outputs))],
            "attributes": attrs,
        }],
    }
