"""What a model holds that the converter cannot handle: per unknown op type, its nodes, their
input/output counts and the attributes seen on them, and a ready generator config for it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from converter import frameworks
from converter.extensions import extension_scope
from converter.framework_names import FRAMEWORKS
from converter.front.extractor import extract_nodes, unsupported_nodes
from converter.graph.graph import Node
from converter.middle.declared_shapes import declared_shapes
from converter.options import ConvertOptions
from converter.pipeline import load_extensions
from extgen.generator.config import Attribute, snake_case
from extgen.generator.names import MAX_NAME, OP_NAMES, fold_identifier
from extgen.generator.targets import TARGETS, extractor_target
from extgen.shape_formula import declared_formula

__all__ = ["UnknownOp", "camel_case", "config_for", "find_unknown_ops"]

@dataclass
class UnknownOp:
    framework: str
    op_type: str
    nodes: list[str] = field(default_factory=list)
    inputs: int = 0
    outputs: int = 0
    attributes: dict[str, Any] = field(default_factory=dict)
    standard: str | None = None  # 'ONNX op LSTM (opset 14)': a standard op extgen lacks
    # the shapes the model declares for its first node's inputs and outputs (None: none)
    input_shapes: list[tuple[int, ...] | None] = field(default_factory=list)
    output_shapes: list[tuple[int, ...] | None] = field(default_factory=list)


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
    opts = ConvertOptions(Path(model), framework=framework, extensions=list(extensions or []),
                          **options)
    fw = frameworks.resolve(opts.input_model, opts.framework)
    found: dict[str, UnknownOp] = {}
    with extension_scope():
        load_extensions(opts.extensions, fw)
        graph = fw.read(opts)
        extract_nodes(graph, fw.translators)
        for node in unsupported_nodes(graph):
            entry = found.setdefault(node.op, UnknownOp(fw.name, node.op,
                                                        standard=node.soft_get("standard_op")))
            if not entry.nodes:
                entry.input_shapes, entry.output_shapes = _declared_around(node)
            entry.nodes.append(node.soft_get("name", node.id))
            entry.inputs = max(entry.inputs, len(node.in_ports()))
            entry.outputs = max(entry.outputs, len(node.out_ports()))
            for key, value in (fw.node_attrs(node) if fw.node_attrs else {}).items():
                entry.attributes.setdefault(key, value)
    return sorted(found.values(), key=lambda u: u.op_type)


def _declared_around(node: Node) -> tuple[list, list]:
    """The declared shapes of node's input and output tensors (None where undeclared)."""
    declared = declared_shapes(node.graph)

    def of(port) -> tuple[int, ...] | None:
        return next((declared[n] for n in (port.get_tensor_names() if port else [])
                     if n in declared), None)
    ins = [of(p.get_source()) for _, p in sorted(node.in_ports().items())]
    return ins, [of(p) for _, p in sorted(node.out_ports().items())]


def _unique(name: str, taken: set[str], keys: Callable[[str], set[str]]) -> str:
    """name, or name2, name3, ... : the first whose keys are not taken (then they are)."""
    candidate, n = name, 1
    while keys(candidate) & taken:
        n += 1
        candidate = f"{name[:MAX_NAME - len(str(n))]}{n}"
    taken |= keys(candidate)
    return candidate


def camel_case(name: str) -> str:
    """An op class name from a model's op type: grid_sampler -> GridSampler, my_op -> MyOp,
    Cosh stays Cosh (each word gets a capital; snake_case takes it back)."""
    return "".join(word[:1].upper() + word[1:] for word in name.split("_")) or name


def _op_name(op_type: str, taken: set[str]) -> str:
    """A valid op name for op_type (its last part, ASCII-folded, in CamelCase), unique by file
    name."""
    folded = fold_identifier(op_type.rpartition("::")[2].rpartition(".")[2], "Op")
    name = fold_identifier(camel_case(folded), "Op")
    if name in OP_NAMES or name.startswith("m_"):
        name = f"Op_{name}"[:MAX_NAME]
    return _unique(name, taken, lambda n: {n.lower(), snake_case(n)})


def _attributes(op: UnknownOp, taken: set[str]) -> list[dict[str, Any]]:
    """The attributes seen, typed, named validly (framework_name keeps the model's name); a
    default no target can write is left out, and so is an attribute whose name cannot be."""
    attrs = []
    for key, value in op.attributes.items():
        kind = _attr_type(value)
        if kind is None:
            continue
        default = value.tolist() if isinstance(value, np.ndarray) else value
        name = _unique(fold_identifier(key, "attr"), taken, lambda n: {n.lower()})
        entry = {"name": name, "type": kind,
                 "default": list(default) if isinstance(default, tuple) else default}
        if name != key:
            entry["framework_name"] = key
        if not _accepted(entry):
            entry.pop("default")
        if _accepted(entry):  # else its name in the model cannot be written in the source
            attrs.append(entry)
    return attrs


def _accepted(attribute: dict[str, Any]) -> bool:
    try:
        Attribute.model_validate(attribute)
    except ValidationError:
        return False
    return True


def config_for(op: UnknownOp, taken: set[str] | None = None) -> dict[str, Any]:
    """A generator config (JSON-ready) for one unknown op: every target, its attributes typed
    from the values seen, shape a formula giving the output shape the model declares, else
    the same as input 0 (edit when it changes shape). taken: the op
    names (lower-case and snake_case) other configs use, updated."""
    inputs = [f"x{i}" if op.inputs > 1 else "x" for i in range(max(1, op.inputs))]
    outputs = [f"y{i}" if op.outputs > 1 else "y" for i in range(max(1, op.outputs))]
    name = _op_name(op.op_type, set() if taken is None else taken)
    attributes = _attributes(op, {n.lower() for n in [name, *inputs, *outputs]})
    used = {n.lower() for n in [name, *inputs, *outputs, *(a["name"] for a in attributes)]}
    shape = declared_formula(op.input_shapes, op.output_shapes[0], used) \
        if len(op.output_shapes) == 1 else None
    return {
        "targets": [*([extractor_target(op.framework)] if op.framework in FRAMEWORKS else []),
                    *(name for name, spec in TARGETS.items() if spec.framework is None)],
        "ops": [{
            "name": name,
            "framework_types": {op.framework: op.op_type},
            "inputs": [{"name": n} for n in inputs],
            "outputs": [{"name": n} for n in outputs],
            "attributes": attributes,
            **({"shape": shape} if shape else {}),
        }],
    }
