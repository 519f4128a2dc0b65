"""MO's mo.front.tf.common: TensorFlow DataType enum value -> (numpy type, the TensorProto's
typed-value list), and numpy type -> cast of one value."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.front.tf.attrs import TF_DTYPES, VAL_FIELDS

__all__ = ["bool_cast", "tf_data_type_cast", "tf_data_type_decode"]


def bool_cast(x: Any) -> bool | str:
    """A bool, from a string 'true'/'false'/'1'/'0' too ('unknown_boolean_cast' otherwise)."""
    if isinstance(x, str):
        return {"false": False, "0": False, "true": True, "1": True}.get(
            x.lower(), "unknown_boolean_cast")
    return bool(x)


def _np_type(dtype: np.dtype) -> Any:
    return {"bool": bool, "object": str}.get(dtype.name, dtype.type)


def _values(dtype: np.dtype) -> Any:
    field = VAL_FIELDS[dtype.name]
    if dtype == np.float16:  # half_val holds the bits as ints
        return lambda pb: np.uint16(pb.half_val).view(np.float16)
    return lambda pb: getattr(pb, field)


tf_data_type_decode = {enum: (_np_type(dtype), _values(dtype)) for enum, dtype in TF_DTYPES.items()}

tf_data_type_cast = {_np_type(dtype): (bool_cast if dtype == np.bool_ else _np_type(dtype))
                     for dtype in TF_DTYPES.values()}
