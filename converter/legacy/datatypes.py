"""MO's data-type names (mo.middle.passes.convert_data_type): a --data_type or attribute string
('FP32', 'float', 'int64', ...) -> numpy type, precision ('FP32') and element type ('f32')."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.legacy.utils import Error

__all__ = [
    "SUPPORTED_DATA_TYPES", "data_type_str_to_destination_type", "data_type_str_to_np",
    "packed_I4", "packed_U1", "packed_U4",
    "data_type_str_to_precision", "destination_type_to_np_data_type",
    "np_data_type_to_destination_type", "np_data_type_to_precision",
    "precision_to_destination_type",
]

class packed_U1(np.generic):
    """Marks 1-bit data packed in uint8 (a type of its own, as in MO)."""


class packed_U4(np.generic):
    """Marks 4-bit unsigned data packed in uint8."""


class packed_I4(np.generic):
    """Marks 4-bit signed data packed in uint8."""


# name -> (numpy type, precision, element type); MO's names and aliases
SUPPORTED_DATA_TYPES: dict[str, tuple[Any, str, str]] = {
    "float": (np.float32, "FP32", "f32"), "half": (np.float16, "FP16", "f16"),
    "FP32": (np.float32, "FP32", "f32"), "FP64": (np.float64, "FP64", "f64"),
    "FP16": (np.float16, "FP16", "f16"), "I32": (np.int32, "I32", "i32"),
    "I64": (np.int64, "I64", "i64"), "int8": (np.int8, "I8", "i8"),
    "int32": (np.int32, "I32", "i32"), "int64": (np.int64, "I64", "i64"),
    "bool": (bool, "BOOL", "boolean"), "uint8": (np.uint8, "U8", "u8"),
    "uint32": (np.uint32, "U32", "u32"), "uint64": (np.uint64, "U64", "u64"),
    "U1": (packed_U1, "U1", "u1"), "int4": (packed_I4, "I4", "i4"),
    "uint4": (packed_U4, "U4", "u4"), "I4": (packed_I4, "I4", "i4"), "U4": (packed_U4, "U4", "u4"),
}


def _column(name: str, col: int) -> Any:
    entry = SUPPORTED_DATA_TYPES.get(name)
    return None if entry is None else entry[col]


def data_type_str_to_np(data_type_str: str) -> Any:
    """The numpy type of a data-type name, None when unknown."""
    return _column(data_type_str, 0)


def data_type_str_to_precision(data_type_str: str) -> str | None:
    return _column(data_type_str, 1)


def data_type_str_to_destination_type(data_type_str: str) -> str | None:
    return _column(data_type_str, 2)


def _find(want: Any, key: int, col: int, what: str) -> Any:
    for entry in SUPPORTED_DATA_TYPES.values():
        if entry[key] == want:
            return entry[col]
    msg = f'{what} "{want}" is not supported'
    raise Error(msg)


def _same_type(np_type: Any) -> Any:
    if np_type in (bool, np.bool_):
        return bool
    if isinstance(np_type, type) and issubclass(np_type, (packed_U1, packed_U4, packed_I4)):
        return np_type
    return np.dtype(np_type).type


def np_data_type_to_precision(np_data_type: Any) -> str:
    return _find(_same_type(np_data_type), 0, 1, "Data type")


def np_data_type_to_destination_type(np_data_type: Any) -> str:
    """numpy type or dtype -> element type ('f32', 'i64', 'boolean', ...)."""
    return _find(_same_type(np_data_type), 0, 2, "Data type")


def destination_type_to_np_data_type(dst_type: str) -> Any:
    return _find(dst_type, 2, 0, "Destination type")


def precision_to_destination_type(data_type_str: str) -> str:
    return _find(data_type_str, 1, 2, "Data type")
