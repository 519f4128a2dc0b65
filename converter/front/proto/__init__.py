"""Protobuf messages from .proto text, without protoc: a parser for the proto2/proto3 subset
model formats use (messages, enums, oneof, map, options) builds a FileDescriptorProto, and
protobuf's own runtime does the binary and text-format parsing.

    pb = load_proto(Path("caffe.proto"))
    net = pb["caffe.NetParameter"]()
"""

from __future__ import annotations

import re
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from converter.errors import ModelFormatError

__all__ = ["ProtoSyntaxError", "load_proto"]

_SCALARS = {
    "double": 1, "float": 2, "int64": 3, "uint64": 4, "int32": 5, "fixed64": 6, "fixed32": 7,
    "bool": 8, "string": 9, "bytes": 12, "uint32": 13, "sfixed32": 15, "sfixed64": 16,
    "sint32": 17, "sint64": 18,
}
_LABELS = {"optional": 1, "required": 2, "repeated": 3}
_TOKEN = re.compile(
    r'\s*(?:(//[^\n]*|/\*.*?\*/)'  # 1: a comment
    r'|("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')'  # 2: a quoted string
    r'|([A-Za-z_][\w.]*|-?\.?\d[\w.+-]*|\S))',  # 3: a name, a number or one symbol
    re.S,
)


class ProtoSyntaxError(ModelFormatError):
    """A .proto file the parser cannot read; the message names the file and line."""


class _Tokens:
    def __init__(self, text: str, path: Path) -> None:
        self.items: list[tuple[str, int]] = []
        self.path = path
        pos = line = 0
        for m in _TOKEN.finditer(text):
            line += text.count("\n", pos, m.start(m.lastindex))
            pos = m.start(m.lastindex)
            if m.group(1) is None:
                self.items.append((m.group(m.lastindex), line + 1))
        self.i = 0

    def peek(self) -> str:
        return self.items[self.i][0] if self.i < len(self.items) else ""

    def next(self) -> str:
        if self.i >= len(self.items):
            raise self.error("unexpected end of file")
        self.i += 1
        return self.items[self.i - 1][0]

    def expect(self, want: str) -> None:
        got = self.next()
        if got != want:
            raise self.error(f"expected '{want}' here")

    def error(self, what: str) -> ProtoSyntaxError:
        line = self.items[min(self.i, len(self.items)) - 1][1] if self.items else 1
        return ProtoSyntaxError(f"{self.path}:{line}: {what}")

    def skip_statement(self) -> None:
        depth = 0
        while True:
            tok = self.next()
            if tok == "{":
                depth += 1
            elif tok == "}":
                depth -= 1
                if depth == 0:
                    return
            elif tok == ";" and depth == 0:
                return


def _int(t: _Tokens) -> int:
    tok = t.next()
    try:
        return int(tok, 0)
    except ValueError:
        raise t.error("expected a field or enum value number") from None


def _options(t: _Tokens, field: descriptor_pb2.FieldDescriptorProto) -> None:
    if t.peek() != "[":
        return
    t.next()
    while True:
        key = t.next()
        t.expect("=")
        value = t.next()
        if key == "default":
            field.default_value = value.strip("\"'")
        elif key == "packed":
            field.options.packed = value == "true"
        if t.next() == "]":
            return


def _field(t: _Tokens, msg, label: str | None, oneof: int | None = None) -> None:
    ftype = t.next()
    field = msg.field.add()
    if ftype == "map":
        t.expect("<")
        key = t.next()
        t.expect(",")
        value = t.next()
        t.expect(">")
        name = t.next()
        entry = msg.nested_type.add(name="".join(p.capitalize() for p in name.split("_")) + "Entry")
        entry.options.map_entry = True
        for num, (fname, ft) in enumerate((("key", key), ("value", value)), 1):
            _set_type(entry.field.add(name=fname, number=num, label=1), ft)
        field.name, field.label, field.type_name = name, 3, entry.name
    else:
        field.name = t.next()
        field.label = _LABELS.get(label or "optional", 1)
        _set_type(field, ftype)
    t.expect("=")
    field.number = _int(t)
    if oneof is not None:
        field.oneof_index = oneof
    _options(t, field)
    t.expect(";")


def _set_type(field, ftype: str) -> None:
    if ftype in _SCALARS:
        field.type = _SCALARS[ftype]
    else:
        field.type_name = ftype


def _enum(t: _Tokens, enum) -> None:
    enum.name = t.next()
    t.expect("{")
    while (tok := t.next()) != "}":
        if tok in ("option", "reserved"):
            start = t.i
            t.skip_statement()
            if any(word == "allow_alias" for word, _ in t.items[start:t.i]):
                enum.options.allow_alias = True
            continue
        t.expect("=")
        enum.value.add(name=tok, number=_int(t))
        if t.peek() == "[":
            t.skip_statement()
        else:
            t.expect(";")


def _message(t: _Tokens, msg) -> None:
    msg.name = t.next()
    t.expect("{")
    while (tok := t.peek()) != "}":
        if tok == "message":
            t.next()
            _message(t, msg.nested_type.add())
        elif tok == "enum":
            t.next()
            _enum(t, msg.enum_type.add())
        elif tok == "oneof":
            t.next()
            index = len(msg.oneof_decl)
            msg.oneof_decl.add(name=t.next())
            t.expect("{")
            while t.peek() != "}":
                _field(t, msg, None, index)
            t.next()
        elif tok in ("option", "reserved", "extensions", "extend"):
            t.skip_statement()
        elif tok in _LABELS:
            _field(t, msg, t.next())
        elif tok == ";":
            t.next()
        else:
            _field(t, msg, None)
    t.next()


def _parse(path: Path, pool: descriptor_pool.DescriptorPool, done: dict[Path, str]) -> str:
    path = path.resolve()
    if path in done:
        return done[path]
    try:
        text = path.read_text()
    except OSError as err:
        msg = f"{path}: cannot read the .proto file ({err.strerror})"
        raise ProtoSyntaxError(msg) from None
    t = _Tokens(text, path)
    fd = descriptor_pb2.FileDescriptorProto(name=path.name, syntax="proto2")
    done[path] = path.name
    while t.peek():
        tok = t.next()
        if tok == "syntax":
            t.expect("=")
            fd.syntax = t.next().strip("\"'")
            t.expect(";")
        elif tok == "package":
            fd.package = t.next()
            t.expect(";")
        elif tok == "import":
            name = t.next()
            if name in ("public", "weak"):
                name = t.next()
            t.expect(";")
            fd.dependency.append(_parse(path.parent / name.strip("\"'"), pool, done))
        elif tok == "message":
            _message(t, fd.message_type.add())
        elif tok == "enum":
            _enum(t, fd.enum_type.add())
        elif tok in ("option", "service", "extend"):
            t.skip_statement()
        elif tok != ";":
            raise t.error("expected syntax, package, import, message, enum, option, service or "
                          "extend at the top level of a .proto file")
    try:
        pool.Add(fd)
    except (TypeError, ValueError):  # its message quotes the file: not shown
        msg = (f"{path}: the .proto does not hold together (a syntax it does not declare, a "
               "type it uses but does not define, or a name defined twice)")
        raise ProtoSyntaxError(msg) from None
    return fd.name


def _collect(descriptors, out: dict[str, type]) -> None:
    for desc in descriptors:
        out[desc.full_name] = message_factory.GetMessageClass(desc)
        _collect(desc.nested_types, out)


def load_proto(path: Path) -> dict[str, type]:
    """Message classes of the .proto file and its imports, by full name ('pkg.Message')."""
    pool = descriptor_pool.DescriptorPool()
    files: dict[Path, str] = {}
    _parse(Path(path), pool, files)
    classes: dict[str, type] = {}
    for name in files.values():
        _collect(pool.FindFileByName(name).message_types_by_name.values(), classes)
    return classes
