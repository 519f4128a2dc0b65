"""numpy arrays <-> openvino Tensors, including the element types numpy lacks (bf16, float8,
int4...; ml_dtypes in memory), which OpenVINO's own numpy bridge hands back as raw bytes."""

from __future__ import annotations

from typing import Any

import numpy as np

from converter.ir.packing import pack, unpack
from converter.ir.types import dtype_of, element_type, numpy_lacks, packed_bits

__all__ = ["from_ov", "to_ov"]


def to_ov(value: Any) -> Any:
    """A numpy array as something OpenVINO's infer request takes."""
    import openvino as ov

    arr = np.asarray(value)
    if not numpy_lacks(arr.dtype):
        return arr
    bits = packed_bits(arr.dtype)
    flat = np.ascontiguousarray(arr).reshape(-1)  # a 0-d array cannot change its itemsize
    raw = pack(arr, bits) if bits is not None else flat.view(np.uint8)
    tensor = ov.Tensor(getattr(ov.Type, element_type(arr.dtype)), ov.Shape(list(arr.shape)))
    tensor.data.reshape(-1).view(np.uint8)[:] = raw.reshape(-1)
    return tensor


def from_ov(tensor: Any) -> np.ndarray:
    """An OpenVINO output tensor as numpy (ml_dtypes for the types numpy lacks)."""
    dtype = dtype_of(tensor.get_element_type().get_type_name())
    if not numpy_lacks(dtype):
        return np.array(tensor.data)
    shape = tuple(tensor.get_shape())
    raw = np.array(tensor.data).reshape(-1).view(np.uint8)
    bits = packed_bits(dtype)
    if bits is not None:
        return unpack(raw, bits, dtype, int(np.prod(shape, dtype=np.int64))).reshape(shape)
    return raw.view(dtype).reshape(shape)
