"""Keep initializer bytes out of protobuf: a wire-format scan of the mapped .onnx file cuts each
top-level initializer's raw_data out, so protobuf parses only the graph structure and weights
become numpy views of the file (no copy, paged in on use).

Wire format facts: ModelProto.graph = field 7, GraphProto.initializer = field 5,
TensorProto.name = field 8, TensorProto.raw_data = field 9 (https://github.com/onnx/onnx/blob/main/onnx/onnx.proto).
"""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto

__all__ = ["MappedModel", "WireFormatError"]

_MODEL_GRAPH, _GRAPH_INITIALIZER, _TENSOR_NAME, _TENSOR_RAW = 7, 5, 8, 9
_PLAIN_TYPES = {
    TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.INT8,
    TensorProto.INT16, TensorProto.INT32, TensorProto.INT64, TensorProto.UINT8,
    TensorProto.UINT16, TensorProto.UINT32, TensorProto.UINT64, TensorProto.BOOL,
}


class WireFormatError(ValueError):
    """The bytes are not a well-formed protobuf message."""


def _varint(buf, pos: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= end or shift > 63:
            msg = f"bad varint at byte {pos}"
            raise WireFormatError(msg)
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        out.append(b | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _fields(buf, start: int, end: int):
    """Yield (field, wire_type, field_start, payload_start, payload_end)."""
    pos = start
    while pos < end:
        field_start = pos
        key, pos = _varint(buf, pos, end)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, value_end = _varint(buf, pos, end)
        elif wire == 1:
            value_end = pos + 8
        elif wire == 5:
            value_end = pos + 4
        elif wire == 2:
            length, pos = _varint(buf, pos, end)
            value_end = pos + length
        else:
            msg = f"unsupported wire type {wire} at byte {field_start}"
            raise WireFormatError(msg)
        if value_end > end or field == 0:
            msg = f"field {field} at byte {field_start} runs past the end of its message"
            raise WireFormatError(msg)
        yield field, wire, field_start, pos, value_end
        pos = value_end


def _message(field: int, payload: bytes) -> bytes:
    return _encode_varint(field << 3 | 2) + _encode_varint(len(payload)) + payload


def _strip_tensor(buf, start: int, end: int, raw: dict[str, tuple[int, int]]) -> bytes:
    out, name, span = bytearray(), None, None
    for field, wire, fs, ps, pe in _fields(buf, start, end):
        if field == _TENSOR_RAW and wire == 2:
            span = (ps, pe)
            continue
        if field == _TENSOR_NAME and wire == 2:
            name = bytes(buf[ps:pe]).decode("utf-8", "replace")
        out += buf[fs:pe]
    if span is not None:
        if name is None:
            out += buf[span[0]:span[1]]  # unnamed: keep inline (cannot be referenced anyway)
        else:
            raw[name] = span
    return bytes(out)


def _strip_graph(buf, start: int, end: int, raw: dict[str, tuple[int, int]]) -> bytes:
    out = bytearray()
    for field, wire, fs, ps, pe in _fields(buf, start, end):
        if field == _GRAPH_INITIALIZER and wire == 2:
            out += _message(field, _strip_tensor(buf, ps, pe, raw))
        else:
            out += buf[fs:pe]
    return bytes(out)


class MappedModel:
    """An .onnx file: `model` holds the structure, `initializer()` maps the weights."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as f:
            size = f.seek(0, 2)
            self.buffer = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        self.raw: dict[str, tuple[int, int]] = {}
        stripped = bytearray()
        for field, wire, fs, ps, pe in _fields(self.buffer, 0, len(self.buffer)):
            if field == _MODEL_GRAPH and wire == 2:
                stripped += _message(field, _strip_graph(self.buffer, ps, pe, self.raw))
            else:
                stripped += self.buffer[fs:pe]
        self.model = onnx.ModelProto()
        self.model.ParseFromString(bytes(stripped))

    def initializer(self, tensor: TensorProto) -> np.ndarray | None:
        """The tensor's value from the mapped file, or None if its bytes were not cut out."""
        span = self.raw.get(tensor.name)
        if span is None:
            return None
        start, end = span
        if tensor.data_type in _PLAIN_TYPES:
            np_type = onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type)
            dtype = np.dtype(np_type).newbyteorder("<")
            count = (end - start) // dtype.itemsize
            array = np.frombuffer(self.buffer, dtype=dtype, count=count, offset=start)
            return array.reshape(tuple(tensor.dims))
        full = TensorProto()
        full.CopyFrom(tensor)
        full.raw_data = bytes(self.buffer[start:end])
        return onnx.numpy_helper.to_array(full)
