"""Read the variables of a TensorFlow checkpoint (TF 1.x Saver V2, and TF 2.x SavedModel
`variables/`): `<prefix>.index` and `<prefix>.data-NNNNN-of-NNNNN`.

The .index file is a sorted string table: blocks of prefix-compressed key/value entries, an
index block pointing at them and a 48-byte footer (two block handles, padding, an 8-byte magic).
Each key is a tensor name; its value a BundleEntryProto saying where the tensor's raw
little-endian bytes lie in the data shards. The entry under key "" is the BundleHeaderProto.

    values = read_checkpoint(Path("variables/variables"))  # {name: ndarray}
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from converter.errors import InputFileError, ModelFormatError
from converter.front.proto import load_proto
from converter.front.tf.attrs import tf_dtype_extractor, tf_tensor_shape

__all__ = ["object_graph_keys", "read_checkpoint"]

_MAGIC = 0xDB4775248B80FB57
_FOOTER = 48
_BLOCK_TRAILER = 5  # compression type (1 byte) + crc32c (4 bytes)


@cache
def _messages() -> dict:
    return load_proto(Path(__file__).resolve().parent / "proto" / "tensor_bundle.proto")


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if byte < 0x80:
            return value, pos
        shift += 7


def _block(data: bytes, handle: tuple[int, int]) -> bytes:
    offset, size = handle
    if offset + size + _BLOCK_TRAILER > len(data):
        raise ValueError("a block runs past the end of the file")
    if data[offset + size] != 0:
        raise ValueError("compressed blocks are not supported")
    return data[offset:offset + size]


def _entries(block: bytes):
    """(key, value) of every entry in one block."""
    restarts = int.from_bytes(block[-4:], "little")
    end = len(block) - 4 - 4 * restarts
    if end < 0:
        raise ValueError("bad restart count")
    pos, key = 0, b""
    while pos < end:
        shared, pos = _varint(block, pos)
        unshared, pos = _varint(block, pos)
        size, pos = _varint(block, pos)
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        yield key, block[pos:pos + size]
        pos += size


def _handle(value: bytes) -> tuple[int, int]:
    offset, pos = _varint(value, 0)
    size, _ = _varint(value, pos)
    return offset, size


def _table(path: Path) -> dict[bytes, bytes]:
    data = path.read_bytes()
    if len(data) < _FOOTER or int.from_bytes(data[-8:], "little") != _MAGIC:
        raise ValueError("not a checkpoint index (bad magic)")
    footer = data[-_FOOTER:]
    _, pos = _varint(footer, 0)  # the metaindex block: unused
    _, pos = _varint(footer, pos)
    index_offset, pos = _varint(footer, pos)
    index_size, _ = _varint(footer, pos)
    table: dict[bytes, bytes] = {}
    for _, handle in _entries(_block(data, (index_offset, index_size))):
        table.update(_entries(_block(data, _handle(handle))))
    return table


def _strings(raw: bytes, count: int) -> np.ndarray:
    """A string tensor's bytes: every length (varint), a 4-byte checksum, then the strings."""
    lengths, pos = [], 0
    for _ in range(count):
        size, pos = _varint(raw, pos)
        lengths.append(size)
    pos += 4
    out = np.empty(count, dtype=object)
    for i, size in enumerate(lengths):
        out[i] = raw[pos:pos + size]
        pos += size
    return out


def _tensor(entry, shards: list[bytes]) -> np.ndarray | None:
    """The tensor an entry describes (strings as bytes objects); None when partitioned."""
    if entry.shard_id >= len(shards):
        return None
    dtype = tf_dtype_extractor(entry.dtype, object)
    shape = tuple(int(d) for d in tf_tensor_shape(entry.shape))
    raw = shards[entry.shard_id][entry.offset:entry.offset + entry.size]
    if dtype == np.dtype(object):
        return _strings(raw, int(np.prod(shape, dtype=np.int64))).reshape(shape)
    if len(raw) != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
        raise ValueError(f"a tensor of shape {list(shape)} holds {len(raw)} bytes")
    return np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(shape)


def read_checkpoint(prefix: Path) -> dict[str, np.ndarray]:
    """Every tensor of the checkpoint at prefix, by its key."""
    index = Path(f"{prefix}.index")
    if not index.is_file():
        msg = f"{index}: no such checkpoint index; give the checkpoint's prefix (without .index)"
        raise InputFileError(msg)
    msgs = _messages()
    try:
        table = _table(index)
        header = msgs["tensorflow.BundleHeaderProto"].FromString(table.get(b"", b""))
        count = max(header.num_shards, 1)
        shards = [Path(f"{prefix}.data-{i:05d}-of-{count:05d}").read_bytes() for i in range(count)]
        values = {}
        for key, value in table.items():
            if key:
                entry = msgs["tensorflow.BundleEntryProto"].FromString(value)
                tensor = _tensor(entry, shards)
                if tensor is not None:
                    values[key.decode("utf-8", "replace")] = tensor
    except OSError as err:
        msg = f"{prefix}: cannot read the checkpoint ({err.strerror}: {err.filename})"
        raise InputFileError(msg) from err
    except Exception as err:  # noqa: BLE001 - any malformed byte is one format error
        msg = f"{index}: not a valid TensorFlow checkpoint ({err})"
        raise ModelFormatError(msg) from None
    return values


def object_graph_keys(values: dict[str, np.ndarray]) -> list[str | None]:
    """Per object id of a TF 2.x checkpoint's object graph, the key of its variable value."""
    raw = values.get("_CHECKPOINTABLE_OBJECT_GRAPH")
    if raw is None:
        return []
    graph = _messages()["tensorflow.TrackableObjectGraph"].FromString(raw.reshape(-1)[0])
    return [next((a.checkpoint_key for a in node.attributes if a.name == "VARIABLE_VALUE"), None)
            for node in graph.nodes]
