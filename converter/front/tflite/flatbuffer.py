"""A small reader of FlatBuffers tables (https://flatbuffers.dev/internals/): a table starts
with a signed offset back to its vtable, whose uint16 entries give each field's offset in the
table (0: absent, the schema's default); references (tables, vectors, strings) are uint32
offsets forward from where they are stored; a vector is a uint32 length then its elements.

Every read is bounds-checked: a truncated or corrupt file raises ModelFormatError naming it.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from converter.errors import ModelFormatError

__all__ = ["Table", "root"]


class _Buffer:
    def __init__(self, data: bytes | memoryview, source: str) -> None:
        self.data = data
        self.source = source

    def corrupt(self, what: str) -> ModelFormatError:
        return ModelFormatError(f"{self.source}: {what} (truncated or corrupt file); "
                                "export the model again")

    def unpack(self, fmt: str, pos: int) -> Any:
        size = struct.calcsize(fmt)
        if pos < 0 or pos + size > len(self.data):
            raise self.corrupt(f"an offset points outside the file (byte {pos})")
        return struct.unpack_from("<" + fmt, self.data, pos)[0]

    def follow(self, pos: int) -> int:
        """The position a uint32 reference stored at pos points to."""
        return pos + self.unpack("I", pos)


class Table:
    """One table: fields by their index in the schema (declaration order, unions counting two:
    the type, then the value)."""

    def __init__(self, buf: _Buffer, pos: int) -> None:
        self._buf = buf
        self.pos = pos
        vtable = pos - buf.unpack("i", pos)
        self._vtable = vtable
        self._vsize = buf.unpack("H", vtable)
        if self._vsize < 4 or self._vsize % 2:
            raise buf.corrupt("a table has a malformed vtable")

    def _field(self, index: int) -> int:
        """The absolute position of field index, 0 when absent."""
        entry = 4 + 2 * index
        if entry >= self._vsize:
            return 0
        offset = self._buf.unpack("H", self._vtable + entry)
        return self.pos + offset if offset else 0

    def has(self, index: int) -> bool:
        return bool(self._field(index))

    def scalar(self, index: int, fmt: str, default: Any = 0) -> Any:
        """A scalar field in struct format fmt (b B h H i I q Q f d ?)."""
        pos = self._field(index)
        return self._buf.unpack(fmt, pos) if pos else default

    def table(self, index: int) -> Table | None:
        pos = self._field(index)
        return Table(self._buf, self._buf.follow(pos)) if pos else None

    def string(self, index: int) -> str | None:
        raw = self.bytes(index)
        if raw is None:
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self._buf.corrupt("a string is not UTF-8") from None

    def _vector(self, index: int) -> tuple[int, int] | None:
        """(position of the first element, length) of a vector field, None when absent."""
        pos = self._field(index)
        if not pos:
            return None
        start = self._buf.follow(pos)
        return start + 4, self._buf.unpack("I", start)

    def bytes(self, index: int) -> bytes | None:
        vec = self._vector(index)
        if vec is None:
            return None
        start, length = vec
        if start + length > len(self._buf.data):
            raise self._buf.corrupt("a vector runs past the end of the file")
        return bytes(self._buf.data[start:start + length])

    def array(self, index: int, dtype: str) -> np.ndarray:
        """A vector of scalars as a numpy array (empty when absent)."""
        vec = self._vector(index)
        dt = np.dtype(dtype).newbyteorder("<")
        if vec is None:
            return np.zeros(0, dt)
        start, length = vec
        if start + length * dt.itemsize > len(self._buf.data):
            raise self._buf.corrupt("a vector runs past the end of the file")
        return np.frombuffer(self._buf.data, dt, length, start)

    def tables(self, index: int) -> list[Table]:
        """A vector of tables."""
        vec = self._vector(index)
        if vec is None:
            return []
        start, length = vec
        if start + 4 * length > len(self._buf.data):
            raise self._buf.corrupt("a vector runs past the end of the file")
        return [Table(self._buf, self._buf.follow(start + 4 * i)) for i in range(length)]

    def union(self, index: int) -> tuple[int, Table | None]:
        """A union declared at index: (its type, read at index, its table, at index + 1)."""
        kind = self.scalar(index, "B")
        return kind, (self.table(index + 1) if kind else None)

    def corrupt(self, what: str) -> ModelFormatError:
        return self._buf.corrupt(what)


def root(data: bytes | memoryview, source: str, identifier: bytes, kind: str) -> Table:
    """The root table of a FlatBuffer of `kind` (for messages), whose schema's file_identifier
    puts `identifier` (4 bytes) after the root offset."""
    buf = _Buffer(data, source)
    if len(data) < 8 or bytes(data[4:8]) != identifier:
        msg = (f"{source}: not a {kind} (it lacks the FlatBuffer identifier "
               f"{identifier.decode()}), or a truncated one; pass the model file itself")
        raise ModelFormatError(msg)
    return Table(buf, buf.follow(0))
