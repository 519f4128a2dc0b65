"""A .tflite file read into plain records (no TensorFlow): its first subgraph's tensors (shape,
type, constant data, quantization) and operators (op name, options, inputs and outputs)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from converter.errors import InputFileError, ModelFormatError
from converter.front.tflite import schema as s
from converter.front.tflite.flatbuffer import Table, root

__all__ = ["Operator", "Quantization", "TensorInfo", "TfliteModel", "read_model"]

# builtin ops that run other subgraphs
_CONTROL_FLOW = {"IF", "WHILE", "CALL_ONCE", "CALL", "STABLEHLO_WHILE", "STABLEHLO_CASE",
                 "STABLEHLO_COMPOSITE"}


@dataclass(frozen=True)
class Quantization:
    """Affine quantization: real = (q - zero_point) * scale, per tensor or along `axis`."""

    scale: np.ndarray
    zero_point: np.ndarray
    axis: int

    def along(self, values: np.ndarray, rank: int) -> np.ndarray:
        """values (one per channel, or one) shaped to broadcast against a rank-`rank` tensor."""
        if values.size == 1 or rank == 0:
            return values.reshape(())
        shape = [1] * rank
        shape[self.axis] = values.size
        return values.reshape(shape)

    def dequantize(self, q: np.ndarray) -> np.ndarray:
        scale = self.along(self.scale.astype(np.float64), q.ndim)
        zero = self.along(self.zero_point.astype(np.float64), q.ndim)
        return ((q.astype(np.float64) - zero) * scale).astype(np.float32)


@dataclass
class TensorInfo:
    index: int
    name: str
    shape: tuple[int, ...]  # -1: dynamic (from the shape signature)
    dtype: np.dtype
    data: np.ndarray | None  # the constant's value, None for an activation
    quantization: Quantization | None

    @property
    def quantized(self) -> bool:
        """Integer values standing for reals (the converter computes them in float32)."""
        return self.quantization is not None and self.dtype.kind in "iu"


@dataclass
class Operator:
    """One operator: `op` is the builtin's name or a custom op's custom_code."""

    index: int
    op: str
    builtin: bool
    version: int
    inputs: list[TensorInfo | None]
    outputs: list[TensorInfo]
    options: dict[str, Any] = field(default_factory=dict)
    custom_options: bytes = b""


@dataclass
class TfliteModel:
    version: int
    inputs: list[TensorInfo]
    outputs: list[TensorInfo]
    operators: list[Operator]


def read_model(path: Path) -> TfliteModel:
    """Read path's first subgraph. One ModelFormatError for a corrupt file, a sparse tensor or
    control flow into other subgraphs."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        msg = f"{path}: cannot read the model ({err.strerror})"
        raise InputFileError(msg) from err
    model = root(data, str(path), s.IDENTIFIER, "TensorFlow Lite model")
    codes = [_code(t) for t in model.tables(s.MODEL["operator_codes"])]
    graphs = model.tables(s.MODEL["subgraphs"])
    if not graphs:
        msg = f"{path}: the model has no subgraph (corrupt file); export the model again"
        raise ModelFormatError(msg)
    buffers = model.tables(s.MODEL["buffers"])
    graph = graphs[0]
    tensors = [_tensor(i, t, buffers, data, path)
               for i, t in enumerate(graph.tables(s.SUBGRAPH["tensors"]))]

    def tensor(i: int) -> TensorInfo:
        if not 0 <= i < len(tensors):
            raise graph.corrupt(f"tensor index {i} is out of range")
        return tensors[i]

    operators = []
    for index, op in enumerate(graph.tables(s.SUBGRAPH["operators"])):
        code = op.scalar(s.OPERATOR["opcode_index"], "I")
        if code >= len(codes):
            raise graph.corrupt(f"operator {index} names operator code {code}")
        name, builtin, version = codes[code]
        if name in _CONTROL_FLOW and len(graphs) > 1:
            msg = (f"{path}: operator {index} ({name}) runs another of the model's "
                   f"{len(graphs)} subgraphs; extgen reads TensorFlow Lite models without "
                   "control flow: convert this one with ovc")
            raise ModelFormatError(msg)
        operators.append(Operator(
            index, name, builtin, version,
            [None if i < 0 else tensor(int(i)) for i in op.array(s.OPERATOR["inputs"], "i4")],
            [tensor(int(i)) for i in op.array(s.OPERATOR["outputs"], "i4")],
            _options(op) if builtin else {},
            b"" if builtin else (op.bytes(s.OPERATOR["custom_options"]) or b"")))
    return TfliteModel(
        model.scalar(s.MODEL["version"], "I"),
        [tensor(int(i)) for i in graph.array(s.SUBGRAPH["inputs"], "i4")],
        [tensor(int(i)) for i in graph.array(s.SUBGRAPH["outputs"], "i4")], operators)


def _code(t: Table) -> tuple[str, bool, int]:
    """(op name, builtin?, version) of an OperatorCode; the builtin code is the larger of the
    deprecated int8 field and the int32 one (old files set only the first)."""
    code = max(t.scalar(s.OPERATOR_CODE["deprecated_builtin_code"], "b"),
               t.scalar(s.OPERATOR_CODE["builtin_code"], "i"))
    version = t.scalar(s.OPERATOR_CODE["version"], "i", 1)
    name = s.builtin_name(code)
    if name == "CUSTOM":
        return t.string(s.OPERATOR_CODE["custom_code"]) or "CUSTOM", False, version
    return name, True, version


def _tensor(index: int, t: Table, buffers: list[Table], data: bytes, path: Path) -> TensorInfo:
    name = t.string(s.TENSOR["name"]) or f"tensor_{index}"
    kind = t.scalar(s.TENSOR["type"], "b")
    dtype = s.TENSOR_TYPES.get(kind)
    if dtype is None:
        msg = (f"{path}: tensor '{name}' has TensorFlow Lite type {kind}, which extgen does "
               "not read; convert this model with ovc")
        raise ModelFormatError(msg)
    if t.has(s.TENSOR["sparsity"]):
        msg = (f"{path}: tensor '{name}' is sparse, which extgen does not read; export the "
               "model without sparsity")
        raise ModelFormatError(msg)
    shape = tuple(int(d) for d in t.array(s.TENSOR["shape"], "i4"))
    signature = t.array(s.TENSOR["shape_signature"], "i4")
    if len(signature) == len(shape):
        shape = tuple(int(d) for d in signature)
    value = _buffer(t.scalar(s.TENSOR["buffer"], "I"), buffers, data, t)
    dtype = np.dtype(dtype)
    if value is not None:
        count = int(np.prod(shape)) if shape else 1
        if len(value) != count * dtype.itemsize:
            raise t.corrupt(f"tensor '{name}' holds {len(value)} bytes for shape {list(shape)}")
        value = np.frombuffer(value, dtype.newbyteorder("<")).astype(dtype).reshape(shape)
    return TensorInfo(index, name, shape, dtype, value, _quantization(t))


def _buffer(index: int, buffers: list[Table], data: bytes, t: Table) -> bytes | None:
    """A buffer's bytes (inline, or past the flatbuffer at offset/size); None when empty."""
    if index == 0:
        return None  # buffer 0 is the empty sentinel
    if index >= len(buffers):
        raise t.corrupt(f"a tensor names buffer {index} of {len(buffers)}")
    buf = buffers[index]
    offset = buf.scalar(s.BUFFER["offset"], "Q")
    if offset > 1:
        size = buf.scalar(s.BUFFER["size"], "Q")
        if offset + size > len(data):
            raise t.corrupt(f"buffer {index} runs past the end of the file")
        return data[offset:offset + size] or None
    return buf.bytes(s.BUFFER["data"]) or None


def _quantization(t: Table) -> Quantization | None:
    q = t.table(s.TENSOR["quantization"])
    if q is None:
        return None
    scale = q.array(s.QUANTIZATION["scale"], "f4").copy()
    if scale.size == 0:
        return None
    zero = q.array(s.QUANTIZATION["zero_point"], "i8").copy()
    if zero.size not in (0, 1, scale.size):
        raise t.corrupt("a tensor has as many zero points as neither one nor its scales")
    zero = np.zeros(scale.size, np.int64) if zero.size == 0 else zero
    return Quantization(scale, zero, q.scalar(s.QUANTIZATION["quantized_dimension"], "i"))


def _options(op: Table) -> dict[str, Any]:
    """The builtin options table as {field: value}; defaults for absent fields."""
    kind, table = op.union(s.OPERATOR["builtin_options"])
    fields = s.OPTIONS.get(kind, [])
    found = {}
    for i, spec in enumerate(fields):
        if spec is None:
            continue
        name, fmt, default = spec
        if fmt == "[i]":
            value = table.array(i, "i4") if table is not None and table.has(i) else None
            found[name] = default if value is None else [int(v) for v in value]
        else:
            found[name] = table.scalar(i, fmt, default) if table is not None else default
    return found
