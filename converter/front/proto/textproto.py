"""A fast reader of protobuf text format for big files (a frozen ResNet's .pbtxt is 270 MB, nearly
all of it escaped tensor_content): tokens come from one regex over the bytes, a quoted string is
found with bytes.find and unescaped in one C call, and fields are set through the message's
descriptor. protobuf's own text_format takes 70 s and 4 GB on such a file.

    merge_text(data, graph_def)  # raises TextFormatError(line, what)
"""

from __future__ import annotations

import codecs
import re
import warnings
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

__all__ = ["TextFormatError", "merge_text"]

_SKIP = re.compile(rb"(?:\s+|#[^\n]*)*")
_TOKEN = re.compile(rb"[-+]?[\w.]+(?:(?<=[eE])[-+]\d+)?|[{}<>:;,\[\]]")
_ESCAPE = re.compile(rb"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{4})"
                     rb"|U([0-9a-fA-F]{8})|(.))", re.S)
_SIMPLE = {b"n": b"\n", b"t": b"\t", b"r": b"\r", b"a": b"\a", b"b": b"\b", b"f": b"\f",
           b"v": b"\v", b"?": b"?", b"\\": b"\\", b"'": b"'", b'"': b'"'}
_INTS = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
         FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
         FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64,
         FieldDescriptor.TYPE_SFIXED32, FieldDescriptor.TYPE_SFIXED64}
_FLOATS = {FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE}
_BOOLS = {b"true": True, b"True": True, b"t": True, b"1": True,
          b"false": False, b"False": False, b"f": False, b"0": False}
_SPECIAL_FLOATS = {"inf", "-inf", "+inf", "infinity", "-infinity", "nan", "-nan"}
_CLOSE = {b"{": b"}", b"<": b">"}


class TextFormatError(ValueError):
    """A syntax or schema error at a 1-based line of the text."""

    def __init__(self, line: int, what: str) -> None:
        super().__init__(f"line {line}: {what}")
        self.line = line
        self.what = what


def _unescape(body: bytes) -> bytes:
    if b"\\" not in body:
        return body
    with warnings.catch_warnings():  # Python's escapes are protobuf's but \? \u \U and \xH
        warnings.simplefilter("error")
        try:
            return codecs.escape_decode(body)[0]
        except (DeprecationWarning, ValueError):
            return _ESCAPE.sub(_escape_value, body)


def _escape_value(m: re.Match) -> bytes:
    octal, hexa, u4, u8, other = m.groups()
    if octal or hexa:
        return bytes([int(octal, 8) & 0xFF if octal else int(hexa, 16)])
    if u4 or u8:
        return chr(int(u4 or u8, 16)).encode("utf-8")
    if other in _SIMPLE:
        return _SIMPLE[other]
    msg = "an escape sequence (\\...) that protobuf does not define"
    raise ValueError(msg)


class _Reader:
    """Tokens of data (bytes or mmap) on demand; a string token is (b'"', its bytes)."""

    def __init__(self, data) -> None:
        self.data = data
        self.pos = 0

    def line(self, pos: int | None = None) -> int:
        return self.data[: self.pos if pos is None else pos].count(b"\n") + 1

    def error(self, what: str) -> TextFormatError:
        return TextFormatError(self.line(), what)

    def _skip(self) -> int:
        self.pos = _SKIP.match(self.data, self.pos).end()
        return self.pos

    def peek(self) -> bytes:
        pos = self._skip()
        if pos >= len(self.data):
            return b""
        char = self.data[pos:pos + 1]
        if char in (b'"', b"'"):
            return char
        m = _TOKEN.match(self.data, pos)
        if m is None:
            raise self.error("a character the text format does not allow here")
        return m.group()

    def next(self) -> bytes:
        token = self.peek()
        if not token:
            raise self.error("unexpected end of the text")
        self.pos += len(token)
        return token

    def expect(self, want: bytes) -> None:
        got = self.peek()
        if got != want:
            found = "something else" if got else "the end of the text"
            raise self.error(f"expected '{want.decode()}' but found {found}")
        self.pos += len(want)

    def string(self) -> bytes:
        """Adjacent quoted strings, unescaped and joined."""
        parts = []
        while self.peek() in (b'"', b"'"):
            quote, start = self.data[self.pos:self.pos + 1], self.pos + 1
            end = start
            while True:
                seen, end = end, self.data.find(quote, end)
                if end < 0 or self.data.find(b"\n", seen, end) >= 0:
                    raise self.error("a string is not closed on its line")
                slashes = 0
                while self.data[end - 1 - slashes] == 0x5C:
                    slashes += 1
                if slashes % 2 == 0:
                    break
                end += 1
            try:
                parts.append(_unescape(self.data[start:end]))
            except ValueError as err:
                raise self.error(str(err)) from None
            self.pos = end + 1
        return b"".join(parts)


def _scalar(reader: _Reader, field: FieldDescriptor) -> Any:
    """One scalar value of field's type."""
    kind = field.type
    if kind in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        if reader.peek() not in (b'"', b"'"):
            raise reader.error(f"field '{field.name}' takes a quoted string")
        value = reader.string()
        if kind == FieldDescriptor.TYPE_BYTES:
            return value
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise reader.error(f"field '{field.name}' holds a string that is not UTF-8") from None
    token = reader.next()
    text = token.decode("latin-1")
    try:
        if kind in _INTS:
            return int(text, 8) if re.fullmatch(r"[-+]?0[0-7]+", text) else int(text, 0)
        if kind in _FLOATS:
            lower = text.lower()
            return float(lower if lower in _SPECIAL_FLOATS else text.rstrip("fF"))
        if kind == FieldDescriptor.TYPE_BOOL:
            return _BOOLS[token]
        if kind == FieldDescriptor.TYPE_ENUM:
            named = field.enum_type.values_by_name.get(text)
            return named.number if named is not None else int(text)
    except (ValueError, KeyError):
        pass
    raise reader.error(f"field '{field.name}' takes {_value_kind(field)}; "
                       "the value given is not one")


def _value_kind(field: FieldDescriptor) -> str:
    """What a scalar field takes, in words (an error says so instead of quoting the text)."""
    if field.type in _INTS:
        return "an integer"
    if field.type in _FLOATS:
        return "a number"
    if field.type == FieldDescriptor.TYPE_BOOL:
        return "true or false"
    return f"a value of {field.enum_type.full_name}"


def _is_repeated(field: FieldDescriptor) -> bool:
    if hasattr(field, "is_repeated"):  # protobuf 6+; `label` is gone in 7
        return field.is_repeated
    return field.label == FieldDescriptor.LABEL_REPEATED


def _merge_field(reader: _Reader, msg: Message, field: FieldDescriptor) -> None:
    """The value(s) of one field, after its name."""
    is_message = field.type in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_GROUP)
    repeated = _is_repeated(field)
    if not is_message or reader.peek() == b":":
        reader.expect(b":")
    if reader.peek() == b"[" and repeated:  # a list: name: [v1, v2]
        reader.next()
        while reader.peek() != b"]":
            _merge_value(reader, msg, field, is_message, repeated)
            if reader.peek() != b"]":
                reader.expect(b",")
        reader.next()
        return
    _merge_value(reader, msg, field, is_message, repeated)


def _merge_value(reader: _Reader, msg: Message, field: FieldDescriptor, is_message: bool,
                 repeated: bool) -> None:
    if not is_message:
        value = _scalar(reader, field)
        if repeated:
            getattr(msg, field.name).append(value)
        else:
            setattr(msg, field.name, value)
        return
    opening = reader.next()
    if opening not in _CLOSE:
        raise reader.error(f"field '{field.name}' takes a message in {{ }}")
    if field.message_type.GetOptions().map_entry:
        _merge_map_entry(reader, getattr(msg, field.name), field, _CLOSE[opening])
    else:
        target = getattr(msg, field.name).add() if repeated else getattr(msg, field.name)
        target.SetInParent()  # an empty `shape { }` is present
        _merge_message(reader, target, _CLOSE[opening])


def _merge_map_entry(reader: _Reader, mapping: Any, field: FieldDescriptor,
                     close: bytes) -> None:
    entry = message_factory.GetMessageClass(field.message_type)()
    _merge_message(reader, entry, close)
    value_field = field.message_type.fields_by_name["value"]
    if value_field.type == FieldDescriptor.TYPE_MESSAGE:
        mapping[entry.key].CopyFrom(entry.value)
    else:
        mapping[entry.key] = entry.value


def _merge_message(reader: _Reader, msg: Message, close: bytes) -> None:
    """Fields up to close (b'' for the end of the text)."""
    fields = msg.DESCRIPTOR.fields_by_name
    while True:
        token = reader.peek()
        if token == close:
            reader.pos += len(close)
            return
        if not token:
            raise reader.error(f"expected '{close.decode()}' but the text ends")
        field = fields.get(token.decode("latin-1"))
        if field is None:
            raise reader.error(f"a field name message {msg.DESCRIPTOR.full_name} does not have")
        reader.next()
        _merge_field(reader, msg, field)
        if reader.peek() in (b",", b";"):
            reader.next()


def merge_text(data: Any, msg: Message) -> Message:
    """Merge text-format data (bytes or an mmap) into msg; TextFormatError on bad text."""
    _merge_message(_Reader(data), msg, b"")
    return msg
