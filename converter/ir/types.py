"""Element types (IR names <-> numpy dtypes) and attribute kinds (IR string <-> Python value)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from converter.graph.shape import DYN, parse_shape

__all__ = [
    "ATTR_KINDS",
    "dtype_of",
    "element_type",
    "format_attr",
    "numpy_lacks",
    "packed_bits",
    "parse_attr",
    "precision",
]

_ELEMENT_TYPES = {
    "f64": np.float64, "f32": np.float32, "f16": np.float16,
    "i64": np.int64, "i32": np.int32, "i16": np.int16, "i8": np.int8,
    "u64": np.uint64, "u32": np.uint32, "u16": np.uint16, "u8": np.uint8,
    "boolean": np.bool_,
    # types numpy lacks, as ml_dtypes defines them (one value per byte in memory)
    "bf16": ml_dtypes.bfloat16, "f8e4m3": ml_dtypes.float8_e4m3fn,
    "f8e5m2": ml_dtypes.float8_e5m2, "f8e8m0": ml_dtypes.float8_e8m0fnu,
    "f4e2m1": ml_dtypes.float4_e2m1fn, "i4": ml_dtypes.int4, "u4": ml_dtypes.uint4,
    "u2": ml_dtypes.uint2,
}
_BY_DTYPE = {np.dtype(v): k for k, v in _ELEMENT_TYPES.items()}
_ML_DTYPES = frozenset(d for d in _BY_DTYPE if d.type.__module__.startswith("ml_dtypes"))
_PRECISION = {"boolean": "BOOL", "f16": "FP16", "f32": "FP32", "f64": "FP64"}
# element types packed below a byte in the .bin: bits per value, the first value lowest
_PACKED_BITS = {"i4": 4, "u4": 4, "f4e2m1": 4, "u2": 2}


def element_type(dtype: Any) -> str:
    """numpy dtype -> IR element_type ('f32', 'i64', 'boolean', ...)."""
    try:
        return _BY_DTYPE[np.dtype(dtype)]
    except (KeyError, TypeError) as err:
        msg = f"element type {dtype} has no OpenVINO IR equivalent"
        raise ValueError(msg) from err


def dtype_of(name: str) -> np.dtype:
    """IR element_type or port precision ('f32', 'FP32', 'I64', 'BOOL') -> numpy dtype."""
    key = name.strip().lower()
    key = {"bool": "boolean", "fp32": "f32", "fp16": "f16", "fp64": "f64"}.get(key, key)
    try:
        return np.dtype(_ELEMENT_TYPES[key])
    except KeyError as err:
        msg = f"unknown element type '{name}'"
        raise ValueError(msg) from err


def precision(dtype: Any) -> str:
    """numpy dtype -> port precision ('FP32', 'I64', 'BOOL', ...)."""
    et = element_type(dtype)
    return _PRECISION.get(et, et.upper())


def numpy_lacks(dtype: Any) -> bool:
    """True for the element types numpy has no dtype of its own for (ml_dtypes provides them;
    their dtype.kind is not reliable: 'V' for most, 'f' for float8_e5m2)."""
    return np.dtype(dtype) in _ML_DTYPES


def packed_bits(dtype: Any) -> int | None:
    """Bits per value of an element type stored below a byte in the .bin, else None."""
    return _PACKED_BITS.get(_BY_DTYPE.get(np.dtype(dtype), ""))


def _fmt_float(v: float) -> str:
    f = float(v)
    if not np.isfinite(f):
        return "inf" if f > 0 else "-inf" if f < 0 else "nan"
    if f == int(f) and abs(f) < 1e15:
        return str(int(f)) if f != 0 or str(f)[0] != "-" else "-0"
    return repr(f)


def _fmt_shape(v: Any) -> str:
    if v is None:
        return "..."
    return ",".join("?" if int(d) == DYN else str(int(d)) for d in v)


def _parse_shape(s: str) -> tuple[int, ...] | None:
    return None if s.strip().strip("[]") == "..." else parse_shape(s)


def _split(s: str) -> list[str]:
    return [p.strip() for p in s.split(",") if p.strip()]


ATTR_KINDS: dict[str, tuple] = {
    # kind: (format(value) -> str, parse(str) -> value)
    "int": (lambda v: str(int(v)), lambda s: int(s)),
    "ints": (lambda v: ",".join(str(int(x)) for x in v), lambda s: [int(p) for p in _split(s)]),
    "float": (_fmt_float, lambda s: float(s)),
    "floats": (lambda v: ",".join(_fmt_float(x) for x in v),
               lambda s: [float(p) for p in _split(s)]),
    "bool": (lambda v: "true" if v else "false", lambda s: s.strip().lower() in ("true", "1")),
    "str": (str, str),
    "strs": (lambda v: ",".join(v), _split),
    "shape": (_fmt_shape, _parse_shape),
    "type": (lambda v: element_type(v) if not isinstance(v, str) else v, dtype_of),
}


def format_attr(value: Any, kind: str | None = None) -> str:
    """Python value -> IR attribute string, by kind when known, else by the value's type."""
    if kind is not None:
        return ATTR_KINDS[kind][0](value)
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return element_type(value)
    if isinstance(value, (float, np.floating)):
        return _fmt_float(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return ",".join(format_attr(v) for v in np.asarray(value).ravel().tolist())
    return str(value)


def parse_attr(text: str, kind: str | None) -> Any:
    """IR attribute string -> Python value for a kind (None keeps the string)."""
    return text if kind is None else ATTR_KINDS[kind][1](text)
