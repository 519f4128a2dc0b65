"""nnet3's config lines and input descriptors, parsed into plain values.

    component-node name=tdnn1 component=tdnn1 input=Append(Offset(input, -1), input)

A line is its kind and key=value fields (a value may hold spaces inside parentheses). A
descriptor is a node name (str) or a tuple (function name, arguments...), where the arguments
are descriptors or numbers: ("Append", "a", ("Offset", "input", -1)).
"""

from __future__ import annotations

import re

from converter.errors import ModelFormatError

__all__ = ["parse_descriptor", "parse_line"]

_NAME = re.compile(r"[A-Za-z_][\w.\-]*")
_NUMBER = re.compile(r"-?\d+(\.\d*)?([eE][-+]?\d+)?")


def parse_line(line: str) -> tuple[str, dict[str, str]]:
    """('component-node', {'name': ..., 'input': ...}) for one config line."""
    kind, _, rest = line.partition(" ")
    fields: dict[str, str] = {}
    i = 0
    while i < len(rest):
        if rest[i] == " ":
            i += 1
            continue
        eq = rest.find("=", i)
        if eq < 0:
            raise ModelFormatError(f"nnet3 config line '{line}': '{rest[i:]}' is not key=value")
        key, depth, j = rest[i:eq].strip(), 0, eq + 1
        while j < len(rest) and (depth or rest[j] != " "):
            depth += {"(": 1, ")": -1}.get(rest[j], 0)
            j += 1
        fields[key] = rest[eq + 1:j]
        i = j
    return kind, fields


def parse_descriptor(text: str) -> str | tuple:
    """The descriptor tree of an input= value."""
    tree, end = _parse(text.replace(" ", ""), 0)
    if end != len(text.replace(" ", "")):
        raise ModelFormatError(f"an nnet3 input= descriptor: unexpected text after character {end}")
    return tree


def _parse(text: str, pos: int) -> tuple[str | tuple | float, int]:
    number = _NUMBER.match(text, pos)
    if number and (number.end() == len(text) or text[number.end()] in ",)"):
        value = number.group()
        return (float(value) if any(c in value for c in ".eE") else int(value)), number.end()
    name = _NAME.match(text, pos)
    if name is None:
        raise ModelFormatError(f"an nnet3 input= descriptor cannot be read at character {pos}")
    pos = name.end()
    if pos >= len(text) or text[pos] != "(":
        return name.group(), pos
    args: list = []
    pos += 1
    while True:
        arg, pos = _parse(text, pos)
        args.append(arg)
        if pos >= len(text):
            raise ModelFormatError("an nnet3 input= descriptor has an unclosed '('")
        if text[pos] == ")":
            return (name.group(), *args), pos + 1
        if text[pos] != ",":
            raise ModelFormatError(f"an nnet3 input= descriptor: expected ',' at character {pos}")
        pos += 1
