"""Element types OpenVINO has no type for, carried in the IR by a standard type that holds each
of their values exactly: the float8 `fnuz` types (ONNX FLOAT8E4M3FNUZ, FLOAT8E5M2FNUZ) as f32,
int2 as i8. A model input or output of such a type is that carrier in the IR; casting to it
rounds (or wraps) to its values in the carrier, and the caller converts the carrier's values
back (`ExtgenBackend` does)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

__all__ = ["CARRIED_TYPE", "carrier", "is_carried"]

# the node attribute a frontend records a carried value's own element type under
CARRIED_TYPE = "carried_type"

_CARRIERS = {
    np.dtype(ml_dtypes.float8_e4m3fnuz): np.dtype(np.float32),
    np.dtype(ml_dtypes.float8_e5m2fnuz): np.dtype(np.float32),
    np.dtype(ml_dtypes.int2): np.dtype(np.int8),
}


def is_carried(dtype: Any) -> bool:
    """True for an element type the IR carries in another type."""
    return np.dtype(dtype) in _CARRIERS


def carrier(dtype: Any) -> np.dtype:
    """The IR element type that holds dtype's values: its carrier, or dtype itself."""
    return _CARRIERS.get(np.dtype(dtype), np.dtype(dtype))
