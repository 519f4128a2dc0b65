"""The MXNet symbol file (`<prefix>-symbol.json`): reading it with one-line errors, and a small
builder that writes one (what the tests make models with).

    {"nodes": [{"op": "null", "name": "data", "inputs": []},
               {"op": "Convolution", "name": "conv1", "attrs": {"kernel": "(3, 3)", ...},
                "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}, ...],
     "arg_nodes": [0, 1, 2], "heads": [[5, 0, 0]], "attrs": {"mxnet_version": ["int", 10600]}}

Inputs are [node index, output index, version] ([node, output] in old files); "null" nodes are
the data inputs, weights and auxiliary states.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from converter.errors import InputFileError, ModelFormatError

__all__ = ["Symbol", "SymbolBuilder", "read_symbol"]


@dataclass
class Symbol:
    """A parsed symbol file: nodes (JSON dicts) and heads as (node index, output index)."""

    path: Path
    nodes: list[dict[str, Any]]
    heads: list[tuple[int, int]]


MAX_OUTPUTS = 4096  # no MXNet op has more; an index beyond it is a corrupt file, not a model


def _entry(path: Path, where: str, entry: Any, nodes: list[dict[str, Any]]) -> tuple[int, int]:
    if (not isinstance(entry, list) or len(entry) not in (2, 3)
            or not all(isinstance(v, int) for v in entry)):
        msg = f"{path}: {where}: an input must be [node, output, version] (integers)"
        raise ModelFormatError(msg)
    node, out = entry[0], entry[1]
    if not 0 <= node < len(nodes) or out < 0:
        msg = f"{path}: {where}: an input refers to node {node}, the file has {len(nodes)}"
        raise ModelFormatError(msg)
    outputs = 1 if nodes[node]["op"] == "null" else MAX_OUTPUTS
    if out >= outputs:
        has = "one output" if outputs == 1 else f"at most {outputs} outputs"
        msg = f"{path}: {where}: an input reads output {out} of node {node}, which has {has}"
        raise ModelFormatError(msg)
    return node, out


def _check_nodes(path: Path, nodes: Any) -> None:
    if not isinstance(nodes, list) or not nodes:
        msg = f"{path}: not an MXNet symbol file (no 'nodes' list)"
        raise ModelFormatError(msg)
    for i, node in enumerate(nodes):
        if not isinstance(node, dict) or not isinstance(node.get("op"), str) \
                or not isinstance(node.get("name"), str):
            msg = f"{path}: node {i} needs an 'op' and a 'name'"
            raise ModelFormatError(msg)
    for i, node in enumerate(nodes):
        inputs = node.get("inputs", [])
        if not isinstance(inputs, list):
            msg = f"{path}: node {i}: 'inputs' must be a list"
            raise ModelFormatError(msg)
        for entry in inputs:
            src, _ = _entry(path, f"node {i}", entry, nodes)
            if src >= i:
                msg = (f"{path}: node {i} reads node {src}, which comes later "
                       "(nodes must be topologically sorted)")
                raise ModelFormatError(msg)


def read_symbol(path: str | Path) -> Symbol:
    """Parse and check a symbol JSON file; errors name the file (and line, for bad JSON)."""
    path = Path(path)
    if not path.is_file():
        msg = f"{path}: no such MXNet symbol file; pass it with --input_symbol"
        raise InputFileError(msg)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        msg = f"{path}: cannot read the symbol file ({err.strerror})"
        raise InputFileError(msg) from err
    except UnicodeDecodeError:
        msg = f"{path}: not an MXNet symbol file (not UTF-8 text)"
        raise ModelFormatError(msg) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        msg = f"{path}:{err.lineno}: not valid JSON ({err.msg}, column {err.colno})"
        raise ModelFormatError(msg) from None
    nodes = data.get("nodes") if isinstance(data, dict) else None
    _check_nodes(path, nodes)
    heads_raw = data.get("heads")
    if heads_raw is None:  # no heads: the last node is the output
        heads = [(len(nodes) - 1, 0)]
    elif isinstance(heads_raw, list) and heads_raw:
        heads = [_entry(path, "heads", h, nodes) for h in heads_raw]
    else:
        msg = f"{path}: 'heads' must list the outputs as [node, output, version]"
        raise ModelFormatError(msg)
    return Symbol(path, nodes, heads)


@dataclass
class SymbolBuilder:
    """Build a symbol JSON node by node; `var`/`op` return "name" or ("name", output)."""

    nodes: list[dict[str, Any]] = field(default_factory=list)
    _index: dict[str, int] = field(default_factory=dict)
    attr_key: str = "attrs"

    def _ref(self, ref: str | tuple[str, int]) -> list[int]:
        name, out = (ref, 0) if isinstance(ref, str) else ref
        return [self._index[name], out, 0]

    def _add(self, node: dict[str, Any]) -> str:
        self._index[node["name"]] = len(self.nodes)
        self.nodes.append(node)
        return node["name"]

    def var(self, name: str, **attrs: Any) -> str:
        node: dict[str, Any] = {"op": "null", "name": name, "inputs": []}
        if attrs:
            node[self.attr_key] = {k: _text(v) for k, v in attrs.items()}
        return self._add(node)

    def op(self, op: str, name: str, inputs: list[str | tuple[str, int]], **attrs: Any) -> str:
        node: dict[str, Any] = {"op": op, "name": name, "inputs": [self._ref(r) for r in inputs]}
        if attrs:
            node[self.attr_key] = {k: _text(v) for k, v in attrs.items()}
        return self._add(node)

    def to_json(self, heads: list[str | tuple[str, int]]) -> str:
        args = [i for i, n in enumerate(self.nodes) if n["op"] == "null"]
        data = {
            "nodes": self.nodes, "arg_nodes": args,
            "node_row_ptr": list(range(len(self.nodes) + 1)),
            "heads": [self._ref(h) for h in heads], "attrs": {"mxnet_version": ["int", 10600]},
        }
        return json.dumps(data, indent=2)

    def save(self, path: str | Path, heads: list[str | tuple[str, int]]) -> Path:
        Path(path).write_text(self.to_json(heads))
        return Path(path)


def _text(value: Any) -> str:
    """An attribute as MXNet writes it: tuples "(3, 3)", booleans "True"."""
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(str(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)
