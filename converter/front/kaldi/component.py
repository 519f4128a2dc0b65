"""One Kaldi component, parsed generically: its type, and each `<Tag>` with the values after it
(numbers, bools, vectors, matrices), so translators and user extractors read fields by tag.

Values before the first tag (the frame offsets of nnet1's `<Splice>`) are kept under the tag
"" (nnet1's weights follow its last learning-rate value: `data(i)` finds them). A binary
number's type (int or float) is not stored in the file, so scalars stay raw until read with
`int()` or `float()`.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from converter.errors import ModelFormatError
from converter.front.kaldi.reader import KaldiReader

__all__ = ["Component", "Scalar", "plain_fields", "read_body"]

# (component type or "*", tag) whose value is an integer vector
_INT_VECTORS = {("*", "<TimeOffsets>"), ("*", "<Context>"), ("Splice", ""),
                ("BlockSoftmax", "<BlockDims>")}
END_OF_COMPONENT = "<!EndOfComponent>"


@dataclass(frozen=True)
class Scalar:
    """A number as stored: 4 or 8 little-endian bytes (binary) or the word (text)."""

    raw: bytes | str

    def guess(self) -> int | float:
        """The value as an int or a float, whichever the bytes (or the word) look like: a
        binary int read as float32 is a denormal."""
        if isinstance(self.raw, str):
            return self.float() if any(c in self.raw for c in ".eEn") else self.int()
        value = self.float()
        return self.int() if len(self.raw) == 4 and 0 < abs(value) < 1e-37 else value

    def int(self) -> int:
        if isinstance(self.raw, str):
            value = self._word()
            if not math.isfinite(value):
                raise ModelFormatError(f"'{self.raw[:40]}' where an integer belongs")
            return int(value)
        return struct.unpack("<i" if len(self.raw) == 4 else "<q", self.raw)[0]

    def float(self) -> float:
        if isinstance(self.raw, str):
            return self._word()
        return struct.unpack("<f" if len(self.raw) == 4 else "<d", self.raw)[0]

    def _word(self) -> float:
        try:
            return float(self.raw)
        except ValueError:
            msg = f"'{self.raw[:40]}' where a number belongs (a corrupt text model?)"
            raise ModelFormatError(msg) from None


@dataclass
class Component:
    """type: the token without brackets ("AffineComponent"); name: nnet3's component name (or
    the type and its position); fields: tag -> values; nested: ParallelComponent's nets."""

    type: str
    name: str
    fields: dict[str, list[Any]] = field(default_factory=dict)
    dims: tuple[int, int] | None = None  # nnet1: (output dim, input dim)
    nested: list[list[Component]] = field(default_factory=list)
    body: bytes | None = None  # a binary file's bytes between the type token and the end tag

    @property
    def tokens(self) -> list[str]:
        return [t for t in self.fields if t]

    def has(self, tag: str) -> bool:
        return bool(self.fields.get(tag))

    def value(self, tag: str, index: int = 0, default: Any = ...) -> Any:
        values = self.fields.get(tag, [])
        if index < len(values):
            return values[index]
        if default is not ...:
            return default
        where = f"value {index} of {tag}" if tag else f"stored value {index}"
        msg = f"{self.type} component '{self.name}': {where} is missing (truncated or corrupt?)"
        raise ModelFormatError(msg)

    def int(self, tag: str, default: int | None = None, index: int = 0) -> int:
        return _scalar(self, tag, index, default, "int")

    def float(self, tag: str, default: float | None = None, index: int = 0) -> float:
        return _scalar(self, tag, index, default, "float")

    def bool(self, tag: str, default: bool = False) -> bool:
        value = self.value(tag, 0, default)
        return bool(value) if isinstance(value, bool) else default

    def data(self, index: int) -> np.ndarray:
        """The index-th vector or matrix of the component, whatever tag it follows (nnet1
        stores its weights after its learning-rate scalars, untagged)."""
        arrays = [v for values in self.fields.values() for v in values
                  if isinstance(v, np.ndarray)]
        if index >= len(arrays):
            msg = (f"{self.type} component '{self.name}': {len(arrays)} stored array(s), "
                   f"array {index} is needed (truncated or corrupt?)")
            raise ModelFormatError(msg)
        return arrays[index]

    def array(self, tag: str, index: int = 0, default: Any = ...) -> np.ndarray:
        value = self.value(tag, index, default)
        if value is not default and not isinstance(value, np.ndarray):
            msg = f"{self.type} component '{self.name}': {tag or 'data'} is not a vector/matrix"
            raise ModelFormatError(msg)
        return value


def plain_fields(comp: Component, max_size: int = 16) -> dict[str, Any]:
    """Each tag (without < >) and its first value as plain data: numbers, bools, and vectors
    of at most max_size values as lists (for `extgen check`)."""
    out: dict[str, Any] = {}
    for tag, values in comp.fields.items():
        if not tag or not values:
            continue
        value = values[0]
        if isinstance(value, Scalar):
            out[tag[1:-1]] = value.guess()
        elif isinstance(value, bool):
            out[tag[1:-1]] = value
        elif isinstance(value, np.ndarray) and value.ndim == 1 and 0 < value.size <= max_size:
            out[tag[1:-1]] = value.tolist()
    return out


def _scalar(comp: Component, tag: str, index: int, default: Any, kind: str) -> Any:
    value = comp.value(tag, index, ... if default is None else default)
    if isinstance(value, Scalar):
        return getattr(value, kind)()
    if value is default:
        return default
    msg = f"{comp.type} component '{comp.name}': {tag} is not a number"
    raise ModelFormatError(msg)


def _value(reader: KaldiReader, ctype: str, tag: str) -> Any:
    if (ctype, tag) in _INT_VECTORS or ("*", tag) in _INT_VECTORS:
        return reader.int_vector()
    if reader.is_array():
        return reader.real()
    reader.skip_space()
    if reader.binary:
        head = reader.data[reader.pos:reader.pos + 1]
        if head in (b"T", b"F"):
            return reader.bool()
        if head in (b"\x04", b"\x08"):
            size = head[0]
            start = reader.pos + 1
            reader.pos = start + size
            if reader.pos > len(reader.data):
                raise reader.fail("unexpected end of file")
            return Scalar(reader.data[start:reader.pos])
        if reader.data[reader.pos:reader.pos + 2] in (b"CM", b"CM2", b"CM3"):
            raise reader.fail("compressed matrices (CM) are not supported")
    word = reader.word()
    if word in ("T", "F"):
        return word == "T"
    return Scalar(word)


def read_body(reader: KaldiReader, comp: Component, ends: tuple[str, ...],
              nested: Any = None) -> str:
    """Read comp's tags and values up to one of the end tokens; return the end token met.
    `nested(reader)` reads a net found inside (`<Nnet>` in nnet1's ParallelComponent)."""
    tag, start = "", reader.pos + 1
    while True:
        if reader.at_end():
            raise reader.fail(f"{comp.type} component '{comp.name}' is not closed")
        word = reader.peek_token()
        if word in ends:
            if reader.binary:
                comp.body = reader.data[start:reader.pos]
            reader.token()
            return word
        if word == "<Nnet>" and nested is not None:
            reader.token()
            comp.nested.append(nested(reader))
            continue
        if word is not None:
            tag = reader.token()
            comp.fields.setdefault(tag, [])
            continue
        comp.fields.setdefault(tag, []).append(_value(reader, comp.type, tag))
