"""Kaldi's serialization, read without Kaldi: tokens, scalars, vectors and matrices, in the
binary form (a file opening with `\\0B`) and the text form.

Binary: a token is its characters and a space; an int or float is one size byte (4 or 8) and
the little-endian value; a bool is `T` or `F`; a float matrix is `FM `, rows and columns as
ints, then the values row by row (`DM ` for doubles), or a compressed matrix (`CM `, `CM2 `,
`CM3 `: converter.front.kaldi.compressed); a vector is `FV `/`DV `, its size, the values; an
integer vector is a size byte, an int32 count and the raw values.
Text: whitespace-separated words; a vector is `[ 1 2 3 ]`, a matrix `[` then one line per row
then `]`.
"""

from __future__ import annotations

import struct

import numpy as np

from converter.errors import ModelFormatError
from converter.front.kaldi.compressed import COMPRESSED, decompress

__all__ = ["KaldiReader"]

_REAL = {b"FM": (np.float32, 2), b"DM": (np.float64, 2), b"FV": (np.float32, 1),
         b"DV": (np.float64, 1)}
_SPACE = b" \t\n\r"


class KaldiReader:
    """A cursor over a Kaldi file's bytes; every read past the end or of the wrong kind raises
    one ModelFormatError naming the file and the offset."""

    def __init__(self, data: bytes, name: str = "model", pos: int = 0) -> None:
        self.data = data
        self.name = name
        self.pos = pos
        self.binary = data[pos:pos + 2] == b"\0B"
        if self.binary:
            self.pos += 2

    def fail(self, what: str) -> ModelFormatError:
        return ModelFormatError(
            f"{self.name}: {what} at byte {self.pos} (truncated or not a Kaldi model?)")

    # -- tokens --------------------------------------------------------------------------
    def skip_space(self) -> None:
        while self.pos < len(self.data) and self.data[self.pos] in _SPACE:
            self.pos += 1

    def at_end(self) -> bool:
        self.skip_space()
        return self.pos >= len(self.data)

    def word(self) -> str:
        """The next whitespace-delimited word (a token in either form)."""
        self.skip_space()
        start = self.pos
        while self.pos < len(self.data) and self.data[self.pos] not in _SPACE:
            self.pos += 1
        if start == self.pos:
            raise self.fail("unexpected end of file")
        word = self.data[start:self.pos].decode("latin-1")
        if not (word.isascii() and word.isprintable()):
            self.pos = start
            raise self.fail("binary data where a token was expected")
        return word

    def peek_word(self) -> str | None:
        """The next word without consuming it; None at the end or before binary data."""
        pos = self.pos
        try:
            return self.word() if not self.at_end() else None
        except ModelFormatError:
            return None
        finally:
            self.pos = pos

    def token(self) -> str:
        """The next `<Token>`."""
        word = self.word()
        if not (word.startswith("<") and word.endswith(">")):
            self.pos -= len(word)
            raise self.fail("expected a <Token>, found a word that is not one")
        return word

    def expect(self, token: str) -> None:
        found = self.token()
        if found != token:
            self.pos -= len(found)
            raise self.fail(f"expected {token}, found another token")

    def peek_token(self) -> str | None:
        word = self.peek_word()
        return word if word and word.startswith("<") and word.endswith(">") else None

    def skip_to(self, token: str) -> bool:
        """Move past the next occurrence of token; False (cursor unchanged) when there is none."""
        at = self.data.find(token.encode() + b" ", self.pos)
        if at < 0 and self.data.endswith(token.encode()):
            at = len(self.data) - len(token)
        if at < 0:
            return False
        self.pos = at + len(token)
        return True

    def line(self) -> str:
        """The rest of the current line (nnet3's config lines are text in both forms)."""
        end = self.data.find(b"\n", self.pos)
        end = len(self.data) if end < 0 else end
        text = self.data[self.pos:end]
        self.pos = end + 1
        try:
            line = text.decode("ascii").strip()
        except UnicodeDecodeError:
            raise self.fail("binary data in the config lines") from None
        if not line.isprintable():
            raise self.fail("a control character in the config lines")
        return line

    # -- scalars -------------------------------------------------------------------------
    def _take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise self.fail("unexpected end of file")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def _number_bytes(self) -> bytes:
        self.skip_space()
        size = self._take(1)[0]
        if size not in (4, 8):
            self.pos -= 1
            raise self.fail(f"expected a number, found size byte {size}")
        return self._take(size)

    def int(self) -> int:
        if not self.binary:
            return _parse(self, int, self.word())
        raw = self._number_bytes()
        return struct.unpack("<i" if len(raw) == 4 else "<q", raw)[0]

    def float(self) -> float:
        if not self.binary:
            return _parse(self, float, self.word())
        raw = self._number_bytes()
        return struct.unpack("<f" if len(raw) == 4 else "<d", raw)[0]

    def bool(self) -> bool:
        self.skip_space()
        flag = self._take(1)
        if flag not in (b"T", b"F"):
            self.pos -= 1
            raise self.fail("expected a bool (T or F)")
        return flag == b"T"

    # -- arrays --------------------------------------------------------------------------
    def is_array(self) -> bool:
        """Whether a vector or matrix comes next."""
        self.skip_space()
        head = self.data[self.pos:self.pos + 2]
        return head in _REAL or head == b"CM" if self.binary else head[:1] == b"["

    def real(self) -> np.ndarray:
        """A float vector or matrix (as float32)."""
        if not self.binary:
            return self._text_array(float).astype(np.float32)
        if self.peek_word() in COMPRESSED:
            kind = self.word()
            self.pos += 1  # the space after the token
            try:
                return decompress(kind, self._take)
            except ValueError as err:
                raise self.fail(str(err)) from None
        self.skip_space()
        head = self._take(2)
        if head not in _REAL:
            self.pos -= 2
            raise self.fail("expected a matrix or vector (FM, FV, DM, DV or a compressed CM), "
                            "found something else")
        dtype, rank = _REAL[head]
        dims = [self.int() for _ in range(rank)]
        if any(d < 0 for d in dims):
            raise self.fail(f"negative size {dims}")
        count = int(np.prod(dims))
        raw = self._take(count * np.dtype(dtype).itemsize)
        return np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<")).reshape(dims).astype(
            np.float32)

    def int_vector(self) -> np.ndarray:
        if not self.binary:
            return self._text_array(int).astype(np.int64)
        self.skip_space()
        size = self._take(1)[0]
        if size not in (4, 8):
            raise self.fail(f"expected an integer vector, found size byte {size}")
        count = struct.unpack("<i", self._take(4))[0]
        if count < 0:
            raise self.fail(f"negative vector size {count}")
        raw = self._take(count * size)
        return np.frombuffer(raw, dtype="<i4" if size == 4 else "<i8").astype(np.int64)

    def _text_array(self, kind: type) -> np.ndarray:
        if self.word() != "[":
            raise self.fail("expected '['")
        end = self.data.find(b"]", self.pos)
        if end < 0:
            raise self.fail("unclosed '['")
        body = self.data[self.pos:end].decode("ascii", "replace")
        self.pos = end + 1
        rows = [r.split() for r in body.strip().split("\n")] if body.strip() else []
        try:
            values = [[kind(v) for v in r] for r in rows]
        except ValueError:
            raise self.fail("a non-number inside '[ ]'") from None
        if not body.lstrip(" ").startswith("\n"):
            return np.array(values[0] if values else [], dtype=np.float64)
        if len({len(r) for r in values}) > 1:
            raise self.fail("matrix rows of different lengths")
        return np.array(values, dtype=np.float64).reshape(len(values), -1)


def _parse(reader: KaldiReader, kind: type, word: str):
    try:
        return kind(word)
    except ValueError:
        raise reader.fail("expected a number, found a word that is not one") from None
