"""The JSON file of `--transformations_config`: read, validated (one line with file and line
per error) and returned as descriptions by id. The format is described in
converter.front.tf.replacement."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from converter.errors import InputFileError, ModelFormatError

__all__ = ["MATCH_KINDS", "CustomReplacementDescriptor", "load_descriptions",
           "load_transformations_config"]

MATCH_KINDS = ("scope", "points", "general")
# key -> (json types, what it must be)
_KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "id": ((str,), "a non-empty string"),
    "match_kind": ((str,), "one of scope, points, general"),
    "custom_attributes": ((dict,), "an object"),
    "instances": ((list, dict), "a list of regexes (scope) or {start_points, end_points} (points)"),
    "inputs": ((list,), "a list of lists of {node, port}"),
    "outputs": ((list,), "a list of {node, port}"),
    "op": ((str,), "an op name"),
    "include_inputs_to_sub_graph": ((bool,), "true or false"),
    "include_outputs_to_sub_graph": ((bool,), "true or false"),
}


@dataclass
class CustomReplacementDescriptor:
    """One description of the JSON file."""

    id: str
    match_kind: str
    custom_attributes: dict[str, Any] = field(default_factory=dict)
    instances: Any = None
    inputs: list | None = None
    outputs: list | None = None
    op: str | None = None
    include_inputs_to_sub_graph: bool = True
    include_outputs_to_sub_graph: bool = True

    def get_inputs_description(self) -> list | None:
        return self.inputs

    def get_outputs_description(self) -> list | None:
        return self.outputs


def _object_lines(text: str) -> list[int]:
    """Line (1-based) of each top-level object of a JSON array, for error messages."""
    lines, depth = [], 0
    in_str = esc = False
    for pos, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth == 2 and ch == "{":
                lines.append(text.count("\n", 0, pos) + 1)
        elif ch in "]}":
            depth -= 1
    return lines


def _check_port_desc(item: Any, where: str) -> None:
    if (not isinstance(item, dict) or not isinstance(item.get("node"), str)
            or not isinstance(item.get("port"), int) or isinstance(item.get("port"), bool)):
        msg = f"{where}: must be {{\"node\": <regex>, \"port\": <int>}}"
        raise ModelFormatError(msg)
    try:
        re.compile(item["node"])
    except re.error as err:
        msg = f"{where}: its node is not a valid regex ({err})"
        raise ModelFormatError(msg) from None


def _validate(raw: Any, where: str) -> CustomReplacementDescriptor:
    if not isinstance(raw, dict):
        msg = f"{where}: a description must be an object"
        raise ModelFormatError(msg)
    for key in ("id", "match_kind"):
        if key not in raw:
            msg = f"{where}: '{key}' is required"
            raise ModelFormatError(msg)
    for key, value in raw.items():
        if key not in _KEYS:
            msg = f"{where}: a key it does not know (known: {', '.join(_KEYS)})"
            raise ModelFormatError(msg)
        types, what = _KEYS[key]
        if not isinstance(value, types) or (key == "id" and not value):
            msg = f"{where}: '{key}' must be {what}"
            raise ModelFormatError(msg)
    kind = raw["match_kind"]
    if kind not in MATCH_KINDS:
        msg = f"{where}: 'match_kind' must be one of scope, points, general"
        raise ModelFormatError(msg)
    instances = raw.get("instances")
    if kind == "scope":
        names = isinstance(instances, list) and all(isinstance(i, str) for i in instances)
        if not instances or not names:
            msg = f"{where}: match_kind scope needs 'instances', a non-empty list of name regexes"
            raise ModelFormatError(msg)
        for k, pattern in enumerate(instances):
            try:
                re.compile(pattern)
            except re.error as err:
                msg = f"{where}: instances[{k}] is not a valid regex ({err})"
                raise ModelFormatError(msg) from None
    elif kind == "points":
        ok = isinstance(instances, dict) and all(
            isinstance(instances.get(k), list) and instances.get(k)
            and all(isinstance(n, str) for n in instances[k])
            for k in ("start_points", "end_points"))
        if not ok:
            msg = (f"{where}: match_kind points needs 'instances' with non-empty "
                   "'start_points' and 'end_points' lists of node names")
            raise ModelFormatError(msg)
    for i, group in enumerate(raw.get("inputs") or []):
        if not isinstance(group, list):
            msg = f"{where}: inputs[{i}] must be a list of {{node, port}}"
            raise ModelFormatError(msg)
        for j, item in enumerate(group):
            _check_port_desc(item, f"{where}: inputs[{i}][{j}]")
    for i, item in enumerate(raw.get("outputs") or []):
        _check_port_desc(item, f"{where}: outputs[{i}]")
    return CustomReplacementDescriptor(**raw)


def load_descriptions(path: str | Path, flag: str = "--transformations_config"
                      ) -> list[tuple[dict, CustomReplacementDescriptor]]:
    """Parse and validate the JSON: (raw object, description) in file order. Errors are one line
    with file (and line)."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        msg = f"{flag} {path}: no such file"
        raise InputFileError(msg) from None
    except (OSError, UnicodeDecodeError) as err:
        msg = f"{flag} {path}: cannot read it ({err})"
        raise InputFileError(msg) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        msg = f"{path}:{err.lineno}: not valid JSON ({err.msg})"
        raise ModelFormatError(msg) from None
    if not isinstance(data, list):
        msg = f"{path}:1: the transformations config must be a JSON list of descriptions"
        raise ModelFormatError(msg)
    lines = _object_lines(text)
    return [(raw, _validate(raw, f"{path}:{lines[i] if i < len(lines) else 1}: description {i}"))
            for i, raw in enumerate(data)]


def load_transformations_config(path: str | Path) -> dict[str, list[CustomReplacementDescriptor]]:
    """The descriptions of the JSON file by id."""
    registry: dict[str, list[CustomReplacementDescriptor]] = {}
    for _, desc in load_descriptions(path):
        registry.setdefault(desc.id, []).append(desc)
    return registry
