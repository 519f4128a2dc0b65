"""MXNet's NDArray list file (`*.params`, `*.nd`) read and written without MXNet.

Layout (little-endian), as `NDArray::Save(stream, arrays, names)` writes it:

    uint64 0x112 (list magic) | uint64 reserved | uint64 count | count x NDArray
    | uint64 count | count x (uint64 length, UTF-8 name)      names carry "arg:"/"aux:" prefixes

One NDArray: uint32 magic (V2 0xF993FAC9 with a storage type; V3 0xF993FACA, NumPy shape
semantics), int32 storage type (0 dense), shape (uint32/int32 ndim + int64 dims), context
(int32 dev_type, int32 dev_id), int32 type flag, raw data. Older files: magic V1 0xF993FAC8
(no storage type, int64 dims) or no magic at all (the first uint32 is ndim, uint32 dims).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from converter.errors import InputFileError, ModelFormatError

__all__ = ["DTYPES", "load_params", "read_ndarray_file", "write_ndarray_file"]

LIST_MAGIC = 0x112
V1_MAGIC = 0xF993FAC8
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA
# mshadow type flags
DTYPES: dict[int, np.dtype] = {
    0: np.dtype("<f4"), 1: np.dtype("<f8"), 2: np.dtype("<f2"), 3: np.dtype("u1"),
    4: np.dtype("<i4"), 5: np.dtype("i1"), 6: np.dtype("<i8"), 7: np.dtype("bool"),
}
_FLAGS = {dt.newbyteorder("="): flag for flag, dt in DTYPES.items()}
_STORAGE = {0: "default", 1: "row_sparse", 2: "csr"}


class _Corrupt(Exception):
    """Raised inside the reader; turned into one ModelFormatError naming the file."""


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.pos = 0

    def take(self, size: int) -> memoryview:
        if size < 0 or self.pos + size > len(self.data):
            msg = f"truncated at byte {self.pos} (needs {size} more bytes)"
            raise _Corrupt(msg)
        chunk = self.data[self.pos:self.pos + size]
        self.pos += size
        return chunk

    def unpack(self, fmt: str) -> int:
        return struct.unpack("<" + fmt, self.take(struct.calcsize(fmt)))[0]


def _shape(r: _Reader, ndim: int, dim_fmt: str) -> tuple[int, ...]:
    if not -1 <= ndim <= 32:
        msg = f"bad array rank {ndim} at byte {r.pos - 4}"
        raise _Corrupt(msg)
    dims = tuple(r.unpack(dim_fmt) for _ in range(max(ndim, 0)))
    if any(d < 0 for d in dims):
        msg = f"negative dimension in shape {dims}"
        raise _Corrupt(msg)
    return dims


def _read_array(r: _Reader) -> np.ndarray | None:
    start = r.pos
    magic = r.unpack("I")
    if magic in (V2_MAGIC, V3_MAGIC):
        stype = r.unpack("i")
        if stype != 0:
            kind = _STORAGE.get(stype, f"storage type {stype}")
            msg = f"array at byte {start} is {kind}; only dense arrays are supported"
            raise _Corrupt(msg)
        ndim = r.unpack("i")
        shape = _shape(r, ndim, "q")
        if ndim < 0 or (ndim == 0 and magic == V2_MAGIC):
            return None  # an empty (none) array
    elif magic == V1_MAGIC:
        shape = _shape(r, r.unpack("I"), "q")
        if not shape:
            return None
    else:  # legacy: the magic is the rank, uint32 dims
        shape = _shape(r, magic if magic <= 32 else -2, "I")
        if not shape:
            return None
    r.unpack("i"), r.unpack("i")  # context: dev_type, dev_id (arrays load onto the CPU)
    flag = r.unpack("i")
    if flag not in DTYPES:
        msg = f"array at byte {start}: unknown type flag {flag}"
        raise _Corrupt(msg)
    dtype = DTYPES[flag]
    raw = r.take(math.prod(shape) * dtype.itemsize)  # the bytes must be in the file
    return np.frombuffer(raw, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))


def _name(r: _Reader, index: int) -> str:
    try:
        return bytes(r.take(r.unpack("Q"))).decode("utf-8")
    except UnicodeDecodeError:
        msg = f"the name of array {index} is not valid UTF-8"
        raise _Corrupt(msg) from None


def _parse(data: bytes) -> dict[str, np.ndarray]:
    r = _Reader(data)
    if len(data) < 16 or r.unpack("Q") != LIST_MAGIC:
        msg = "no NDArray list header (magic 0x112)"
        raise _Corrupt(msg)
    r.unpack("Q")  # reserved
    count = r.unpack("Q")
    if count > len(data):
        msg = f"claims {count} arrays in {len(data)} bytes"
        raise _Corrupt(msg)
    arrays = [_read_array(r) for _ in range(count)]
    n_names = r.unpack("Q")
    if n_names not in (0, count):
        msg = f"{count} arrays but {n_names} names"
        raise _Corrupt(msg)
    names = [_name(r, i) for i in range(n_names)]
    if r.pos != len(data):
        msg = f"{len(data) - r.pos} unexpected bytes after the names"
        raise _Corrupt(msg)
    names = names or [str(i) for i in range(count)]
    return {name: a for name, a in zip(names, arrays) if a is not None}


def read_ndarray_file(path: str | Path) -> dict[str, np.ndarray]:
    """Every array of the file by its stored name ("arg:conv1_weight", ...); one-line errors."""
    path = Path(path)
    if not path.is_file():
        msg = f"{path}: no such parameter file"
        raise InputFileError(msg)
    try:
        data = path.read_bytes()
    except OSError as err:
        msg = f"{path}: cannot read the parameters ({err.strerror})"
        raise InputFileError(msg) from err
    try:
        return _parse(data)
    except (_Corrupt, struct.error, ValueError) as err:
        msg = f"{path}: not a valid MXNet .params file ({err})"
        raise ModelFormatError(msg) from None


def load_params(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(arg_params, aux_params) as MO's load_params: prefixes stripped; unprefixed names
    (a `.nd` file) count as arguments."""
    args: dict[str, np.ndarray] = {}
    aux: dict[str, np.ndarray] = {}
    for name, value in read_ndarray_file(path).items():
        kind, sep, key = name.partition(":")
        if sep and kind == "aux":
            aux[key] = value
        elif sep and kind == "arg":
            args[key] = value
        else:
            args[name] = value
    return args, aux


# -- writing (what the tests build models with) ---------------------------------------------------
def _array_bytes(value: np.ndarray, version: str) -> bytes:
    value = np.ascontiguousarray(value)
    flag = _FLAGS.get(value.dtype.newbyteorder("="))
    if flag is None:
        msg = f"MXNet has no type flag for {value.dtype}"
        raise ValueError(msg)
    shape = value.shape
    if version == "legacy":
        head = struct.pack("<I", len(shape)) + struct.pack(f"<{len(shape)}I", *shape)
    elif version == "v1":
        head = struct.pack("<II", V1_MAGIC, len(shape)) + struct.pack(f"<{len(shape)}q", *shape)
    else:
        magic = V3_MAGIC if version == "v3" else V2_MAGIC
        head = struct.pack("<Iii", magic, 0, len(shape)) + struct.pack(f"<{len(shape)}q", *shape)
    body = value.astype(DTYPES[flag], copy=False).tobytes()
    return head + struct.pack("<iii", 1, 0, flag) + body


def write_ndarray_file(path: str | Path, arrays: Mapping[str, np.ndarray],
                       version: str = "v2") -> None:
    """Write arrays (names as stored, e.g. "arg:fc1_weight") as MXNet's `nd.save` does.
    version: "v2" (MXNet 1.x), "v3" (NumPy semantics), "v1" or "legacy" (pre-1.0 layouts)."""
    if version not in ("v1", "v2", "v3", "legacy"):
        msg = f"unknown NDArray layout '{version}'"
        raise ValueError(msg)
    parts = [struct.pack("<QQQ", LIST_MAGIC, 0, len(arrays))]
    parts += [_array_bytes(np.asarray(v), version) for v in arrays.values()]
    parts.append(struct.pack("<Q", len(arrays)))
    for name in arrays:
        raw = name.encode("utf-8")
        parts.append(struct.pack("<Q", len(raw)) + raw)
    Path(path).write_bytes(b"".join(parts))
