"""The readers MO's Kaldi extractors used on `node.parameters` (a component's binary body as
a file object), under MO's names, so extractors written for MO run unchanged:
collect_until_token, read_token_value, read_binary_integer32_token, read_binary_float_token,
read_binary_bool_token, read_binary_matrix, read_binary_vector, ...

`parameters(comp)` gives that stream; a text-form model's component is encoded in the binary
form first (numbers written with a '.' or an exponent as floats, others as ints)."""

from __future__ import annotations

import io
import struct
from typing import BinaryIO

import numpy as np

from converter.errors import ModelFormatError
from converter.front.kaldi.component import Component, Scalar

__all__ = [
    "collect_until_token", "collect_until_token_and_read", "collect_until_whitespace",
    "find_next_tag", "get_bool", "get_uint16", "get_uint32", "get_uint64", "parameters",
    "read_binary_bool_token", "read_binary_float_token", "read_binary_integer32_token",
    "read_binary_integer64_token", "read_binary_matrix", "read_binary_vector",
    "read_blob", "read_learning_info", "read_placeholder", "read_string", "read_token_value",
]


def parameters(comp: Component) -> BinaryIO:
    """The component's body as MO's extractors read it."""
    return io.BytesIO(comp.body if comp.body is not None else _encode(comp))


def _encode(comp: Component) -> bytes:
    out = bytearray()
    for tag, values in comp.fields.items():
        if tag:
            out += tag.encode() + b" "
        for v in values:
            if isinstance(v, bool):
                out += b"T" if v else b"F"
            elif isinstance(v, Scalar):
                x = v.guess()
                out += b"\x04" + struct.pack("<i" if isinstance(x, int) else "<f", x)
            elif isinstance(v, np.ndarray) and v.dtype.kind == "i":
                out += b"\x04" + struct.pack("<i", v.size) + v.astype("<i4").tobytes()
            elif isinstance(v, np.ndarray):
                out += (b"FM " if v.ndim == 2 else b"FV ")
                for d in v.shape:
                    out += b"\x04" + struct.pack("<i", d)
                out += v.astype("<f4").tobytes()
    return bytes(out)


def _take(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise ModelFormatError("a Kaldi component's parameters end too early")
    return data


def get_bool(s: bytes) -> bool:
    return s in (b"T", b"\x01")


def get_uint16(s: bytes) -> int:
    return struct.unpack("<H", s)[0]


def get_uint32(s: bytes) -> int:
    return struct.unpack("<I", s)[0]


def get_uint64(s: bytes) -> int:
    return struct.unpack("<q", s)[0]


def read_placeholder(f: BinaryIO, size: int = 3) -> bytes:
    return f.read(size)


def read_binary_bool_token(f: BinaryIO) -> bool:
    return get_bool(_take(f, 1))


def read_binary_integer32_token(f: BinaryIO) -> int:
    return get_uint32(_take(f, _take(f, 1)[0]))


def read_binary_integer64_token(f: BinaryIO) -> int:
    return get_uint64(_take(f, _take(f, 1)[0]))


def read_binary_float_token(f: BinaryIO) -> float:
    raw = _take(f, _take(f, 1)[0])
    return np.frombuffer(raw, "<f4" if len(raw) == 4 else "<f8")[0]


def collect_until_whitespace(f: BinaryIO) -> bytes:
    word = bytearray()
    while (ch := f.read(1)) not in (b" ", b""):
        word += ch
    return bytes(word)


def read_string(f: BinaryIO) -> bytes:
    return collect_until_whitespace(f)


def find_next_tag(f: BinaryIO) -> str:
    """The next `<...>` in the stream (binary data between is skipped)."""
    tag = b""
    while (ch := f.read(1)) != b"":
        if ch == b"<":
            tag = b"<"
        elif tag:
            tag += ch
            if ch == b">":
                try:
                    return tag.decode("ascii")
                except UnicodeDecodeError:
                    tag = b""
    raise ModelFormatError("a Kaldi component's parameters end before the next <tag>")


def collect_until_token(f: BinaryIO, token: bytes, size_search_zone: int = 0) -> None:
    """Move past the next word ending in token (searching up to offset size_search_zone, or
    to the end)."""
    limit = size_search_zone
    if not limit:
        pos = f.tell()
        limit = f.seek(0, io.SEEK_END)
        f.seek(pos)
    while True:
        if collect_until_whitespace(f).endswith(token):
            return
        if f.tell() >= limit:
            msg = f"token {token.decode(errors='replace')} not found in the component"
            raise ModelFormatError(msg)


_GETTERS = {np.uint32: read_binary_integer32_token, np.uint64: read_binary_integer64_token,
            bool: read_binary_bool_token, np.bytes_: read_string}


def read_token_value(f: BinaryIO, token: bytes = b"", value_type: type = np.uint32):
    found = collect_until_whitespace(f)
    if token and found != token:
        msg = f"expected {token.decode(errors='replace')}, found another token"
        raise ModelFormatError(msg)
    return _GETTERS[value_type](f)


def collect_until_token_and_read(f: BinaryIO, token: bytes, value_type: type = np.uint32):
    collect_until_token(f, token)
    return _GETTERS[value_type](f)


def read_blob(f: BinaryIO, size: int, dtype=np.float32) -> np.ndarray:
    return np.frombuffer(_take(f, size * 4), np.dtype(dtype).newbyteorder("<"))


def read_binary_matrix(f: BinaryIO, read_token: bool = True) -> tuple[np.ndarray, tuple]:
    if read_token:
        read_placeholder(f)
    rows, cols = read_binary_integer32_token(f), read_binary_integer32_token(f)
    return read_blob(f, rows * cols), (rows, cols)


def read_binary_vector(f: BinaryIO, read_token: bool = True, dtype=np.float32) -> np.ndarray:
    if read_token:
        read_placeholder(f)
    return read_blob(f, read_binary_integer32_token(f), dtype)


def read_learning_info(f: BinaryIO) -> None:
    """Skip nnet1's leading <LearnRateCoef>, <BiasLearnRateCoef>, <MaxNorm> (and nnet2/3's
    <LearningRate>) values."""
    known = (b"<LearnRateCoef>", b"<BiasLearnRateCoef>", b"<MaxNorm>", b"<LearningRate>")
    while True:
        pos = f.tell()
        word = collect_until_whitespace(f)
        if word not in known:
            f.seek(pos)
            return
        read_binary_float_token(f)
