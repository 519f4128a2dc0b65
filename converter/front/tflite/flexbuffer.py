"""A reader of FlexBuffers (https://flatbuffers.dev/flexbuffers/), the self-describing format
TFLite custom ops keep their options in (TF's converter writes a map of the op's attributes).

The root is at the end: its byte width last, its packed type before that (type << 2 | width
code), its value before that. Offsets point backwards; vectors and strings have their size
just before their first element; a map is a vector of values whose keys vector (offset and
byte width) comes before the size.
"""

from __future__ import annotations

import struct
from typing import Any

__all__ = ["FlexBufferError", "read_flexbuffer"]

# value types (flexbuffers.h)
_NULL, _INT, _UINT, _FLOAT, _KEY, _STRING = 0, 1, 2, 3, 4, 5
_INDIRECT = {6: "i", 7: "u", 8: "f"}
_MAP, _VECTOR = 9, 10
_TYPED = {11: _INT, 12: _UINT, 13: _FLOAT, 14: _KEY, 15: _STRING}
_FIXED = {16: (_INT, 2), 17: (_UINT, 2), 18: (_FLOAT, 2), 19: (_INT, 3), 20: (_UINT, 3),
          21: (_FLOAT, 3), 22: (_INT, 4), 23: (_UINT, 4), 24: (_FLOAT, 4)}
_BLOB, _BOOL, _VECTOR_BOOL = 25, 26, 36
_FORMATS = {("i", 1): "b", ("i", 2): "h", ("i", 4): "i", ("i", 8): "q", ("u", 1): "B",
            ("u", 2): "H", ("u", 4): "I", ("u", 8): "Q", ("f", 4): "f", ("f", 8): "d"}


class FlexBufferError(ValueError):
    """The bytes are not a well-formed FlexBuffer."""


def read_flexbuffer(data: bytes) -> Any:
    """The root value as Python values: dict, list, str, bytes, int, float, bool, None."""
    if len(data) < 3:
        msg = "too short"
        raise FlexBufferError(msg)
    width = data[-1]
    packed = data[-2]
    return _Reader(data).value(len(data) - 2 - width, width, packed)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, kind: str, pos: int, width: int) -> Any:
        fmt = _FORMATS.get((kind, width))
        if fmt is None or pos < 0 or pos + width > len(self.data):
            msg = f"a value of width {width} at byte {pos} is out of bounds"
            raise FlexBufferError(msg)
        return struct.unpack_from("<" + fmt, self.data, pos)[0]

    def target(self, pos: int, width: int) -> int:
        return pos - self.read("u", pos, width)

    def value(self, pos: int, parent_width: int, packed: int) -> Any:
        kind, width = packed >> 2, 1 << (packed & 3)
        if kind == _NULL:
            return None
        if kind in (_INT, _UINT, _FLOAT):
            return self.read("ifu"[[_INT, _FLOAT, _UINT].index(kind)], pos, parent_width)
        if kind == _BOOL:
            return bool(self.read("u", pos, parent_width))
        start = self.target(pos, parent_width)
        if kind in _INDIRECT:
            return self.read(_INDIRECT[kind], start, width)
        if kind == _KEY:
            return self.key(start)
        if kind in (_STRING, _BLOB):
            size = self.read("u", start - width, width)
            raw = self.data[start:start + size]
            return raw.decode("utf-8", "replace") if kind == _STRING else raw
        if kind in (_VECTOR, _MAP):
            items = self.untyped(start, width)
            if kind == _VECTOR:
                return items
            keys_at = self.target(start - 3 * width, width)
            key_width = self.read("u", start - 2 * width, width)
            return {self.key(self.target(keys_at + i * key_width, key_width)): v
                    for i, v in enumerate(items)}
        if kind in _TYPED or kind in _FIXED or kind == _VECTOR_BOOL:
            elem, size = _FIXED.get(kind, (_TYPED.get(kind, _BOOL), None))
            if size is None:
                size = self.read("u", start - width, width)
            return [self.value(start + i * width, width, elem << 2) for i in range(size)]
        msg = f"unknown value type {kind}"
        raise FlexBufferError(msg)

    def untyped(self, start: int, width: int) -> list[Any]:
        size = self.read("u", start - width, width)
        types = start + size * width
        if types + size > len(self.data):
            msg = "a vector runs past the end"
            raise FlexBufferError(msg)
        return [self.value(start + i * width, width, self.data[types + i]) for i in range(size)]

    def key(self, start: int) -> str:
        end = self.data.find(b"\0", start)
        if start < 0 or end < 0:
            msg = "a key is not terminated"
            raise FlexBufferError(msg)
        return self.data[start:end].decode("utf-8", "replace")
