"""Kaldi's compressed matrices (binary form only: a text model stores them as plain matrices).

After the token `CM`, `CM2` or `CM3` comes a global header: float32 min and range, int32 rows
and columns (little-endian). A 16-bit code v stands for min + range * v / 65535.
- `CM2`: one 16-bit code per value, row by row.
- `CM3`: one byte b per value, row by row, standing for min + range * b / 255.
- `CM`: a header per column (the 16-bit codes of its 0th, 25th, 75th and 100th percentiles
  p0 <= p25 <= p75 <= p100), then each column's bytes b: 0..64 map linearly onto p0..p25,
  64..192 onto p25..p75, 192..255 onto p75..p100.
"""

from __future__ import annotations

import struct

import numpy as np

__all__ = ["COMPRESSED", "decompress"]

COMPRESSED = ("CM", "CM2", "CM3")
_MAX_VALUES = 1 << 31


def decompress(kind: str, take) -> np.ndarray:
    """The float32 matrix after the token `kind`; take(n) gives the next n bytes. A corrupt
    header raises ValueError."""
    low, span, rows, cols = struct.unpack("<ffii", take(16))
    if rows < 0 or cols < 0 or rows * cols >= _MAX_VALUES:
        raise ValueError(f"a compressed matrix of {rows} x {cols} (a corrupt header)")
    if not (np.isfinite(low) and np.isfinite(span)):
        raise ValueError("a compressed matrix whose range is not a finite number")
    if rows == 0 or cols == 0:
        return np.zeros((rows, cols), np.float32)
    low, span = np.float64(low), np.float64(span)
    if kind == "CM2":
        codes = np.frombuffer(take(2 * rows * cols), "<u2").reshape(rows, cols)
        return (low + span / 65535 * codes).astype(np.float32)
    if kind == "CM3":
        codes = np.frombuffer(take(rows * cols), np.uint8).reshape(rows, cols)
        return (low + span / 255 * codes).astype(np.float32)
    heads = low + span / 65535 * np.frombuffer(take(8 * cols), "<u2").reshape(cols, 4)
    codes = np.frombuffer(take(rows * cols), np.uint8).reshape(cols, rows).T.astype(np.float64)
    p0, p25, p75, p100 = (heads[:, i] for i in range(4))
    values = np.where(codes <= 64, p0 + (p25 - p0) * codes / 64,
                      np.where(codes <= 192, p25 + (p75 - p25) * (codes - 64) / 128,
                               p75 + (p100 - p75) * (codes - 192) / 63))
    return values.astype(np.float32)
