"""Sub-byte element types (i4, u4, f4e2m1, u2) in the .bin: several values per byte, the first
value in the lowest bits, as OpenVINO stores them; in memory each value keeps a byte."""

from __future__ import annotations

import numpy as np

__all__ = ["pack", "packed_size", "unpack"]


def packed_size(count: int, bits: int) -> int:
    """Bytes that `count` values of `bits` bits take in the .bin."""
    return -(-count * bits // 8)


def pack(value: np.ndarray, bits: int) -> np.ndarray:
    """Values (one per byte) -> uint8 bytes holding 8 // bits values each."""
    per = 8 // bits
    codes = np.ascontiguousarray(value).reshape(-1).view(np.uint8) & ((1 << bits) - 1)
    codes = np.concatenate([codes, np.zeros(-codes.size % per, np.uint8)]).reshape(-1, per)
    shifts = np.arange(per, dtype=np.uint8) * bits
    return np.bitwise_or.reduce(codes << shifts, axis=1).astype(np.uint8)


def unpack(data: np.ndarray, bits: int, dtype: np.dtype, count: int) -> np.ndarray:
    """uint8 bytes from the .bin -> `count` values of `dtype`, one per byte (ml_dtypes keeps a
    sub-byte value's code in the low bits of its byte)."""
    shifts = np.arange(8 // bits, dtype=np.uint8) * bits
    codes = (data.reshape(-1, 1) >> shifts) & ((1 << bits) - 1)
    return codes.reshape(-1)[:count].astype(np.uint8).view(dtype)
