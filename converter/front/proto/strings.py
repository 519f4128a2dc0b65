"""Find string fields that are not UTF-8 in a parsed protobuf message.

protobuf parses a proto2 `string` field whose bytes are not UTF-8 without an error and hands
it back as `bytes`; code that expects `str` then fails far from the file. Loaders call
`check_strings` once after parsing, so such a file is one error naming it and the field.

    check_strings(model, path)  # ModelFormatError: m.onnx: graph.node[1].op_type is not ...
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from converter.errors import ModelFormatError

__all__ = ["check_strings"]

_STRING, _MESSAGE = FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_MESSAGE


def check_strings(message: Message, path: Path | str) -> None:
    """Raise a ModelFormatError naming path and the field when some string field of message
    (at any depth) holds bytes that are not UTF-8."""
    field = _bad_field(message)
    if field is not None:
        msg = f"{path}: the text of field {field} is not valid UTF-8 (corrupt file)"
        raise ModelFormatError(msg)


def _is_repeated(field: FieldDescriptor) -> bool:
    if hasattr(field, "is_repeated"):  # protobuf 6+; `label` is gone in 7
        return field.is_repeated
    return field.label == FieldDescriptor.LABEL_REPEATED


def _bad_field(message: Message) -> str | None:
    """The dotted path of the first string field holding bytes, or None."""
    for field, value in message.ListFields():
        if field.type not in (_STRING, _MESSAGE):
            continue
        if field.type == _MESSAGE and field.message_type.GetOptions().map_entry:
            found = _bad_map(value)
        elif _is_repeated(field):
            found = next((f"[{i}]{rest}" for i, v in enumerate(value)
                          if (rest := _bad_value(v)) is not None), None)
        else:
            found = _bad_value(value)
        if found is not None:
            return field.name + found
    return None


def _bad_value(value: Any) -> str | None:
    """'' for bytes where a str belongs, '.field...' for a bad field inside a message, or None."""
    if isinstance(value, Message):
        inner = _bad_field(value)
        return None if inner is None else f".{inner}"
    return "" if isinstance(value, bytes) else None


def _bad_map(mapping: Any) -> str | None:
    for i, (key, value) in enumerate(mapping.items()):
        if isinstance(key, bytes):
            return f"[key {i}]"
        rest = _bad_value(value)
        if rest is not None:
            return f"[{i}]{rest}"
    return None
