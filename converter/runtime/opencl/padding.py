"""Padded GPU tensors: the GPU plugin may hand a SimpleGPU kernel tensors with lower and upper
padding on each dim, told through <T>_LOWER_PADDING, _UPPER_PADDING, _PITCHES and _OFFSET. The
shim pads only when asked (GpuDevice(padding=...), which `extgen test` does), so a kernel that
ignores the offset or the pitches is caught: the padding holds a sentinel (NaN, an integer
type's largest value) that must reach no output, and must still be there after the run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from converter.errors import KernelConfigError
from converter.runtime.opencl.jit import bfyx, from_layout, padded, to_layout

__all__ = ["NO_PADDING", "Padding"]

Dims = tuple[int, int, int, int]


# an output's padding holds a NaN of its own bits, so that a kernel writing an input's NaN
# there changes it too
_OUTPUT_NAN = {2: 0x7E5A, 4: 0x7FC5A5A5, 8: 0x7FF8A5A5A5A5A5A5}


def sentinel(dtype: np.dtype, output: bool = False) -> np.generic:
    """What the padding of a tensor of dtype holds: NaN, or the integer type's largest value."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        return dtype.type(np.iinfo(dtype).max)
    if not output:
        return dtype.type(np.nan)
    bits = np.array(_OUTPUT_NAN[dtype.itemsize], dtype=f"u{dtype.itemsize}")
    return bits.view(dtype)[()]


@dataclass(frozen=True)
class Padding:
    """Elements of padding before (lower) and after (upper) each of B, F, Y, X."""

    lower: Dims = (0, 0, 0, 0)
    upper: Dims = (0, 0, 0, 0)

    def __bool__(self) -> bool:
        return any(self.lower) or any(self.upper)

    def dims(self, shape: Sequence[int]) -> Dims:
        """The padded B, F, Y, X dims of a tensor of shape."""
        return padded(shape, self.lower, self.upper)

    def _valid(self, shape: Sequence[int]) -> tuple[slice, ...]:
        return tuple(slice(lo, lo + d) for lo, d in zip(self.lower, bfyx(shape)))

    def layout(self, a: np.ndarray, fmt: str) -> np.ndarray:
        """a in a padded buffer laid out as fmt, the padding full of the sentinel."""
        full = np.full(self.dims(a.shape), sentinel(a.dtype), dtype=a.dtype)
        full[self._valid(a.shape)] = a.reshape(bfyx(a.shape))
        return to_layout(full, fmt)

    def blank(self, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        """A flat padded buffer for an output of shape, all sentinel (in any layout)."""
        return np.full(self.dims(shape), sentinel(dtype, output=True), dtype=dtype).reshape(-1)

    def valid(self, flat: np.ndarray, shape: Sequence[int], fmt: str, before: np.ndarray,
              label: str) -> np.ndarray:
        """The valid region of a padded output buffer; KernelConfigError when the kernel wrote
        into the padding (before: the buffer as uploaded)."""
        if not self:
            return from_layout(flat, shape, fmt)
        dims = self.dims(shape)
        full, was = (from_layout(b, dims, fmt) for b in (flat, before))
        outside = np.ones(dims, dtype=bool)
        outside[self._valid(shape)] = False
        if not np.array_equal(full[outside].view(np.uint8), was[outside].view(np.uint8)):
            msg = (f"{label}: wrote into the output's padding (lower {list(self.lower)}, upper "
                   f"{list(self.upper)}): address it through OUTPUT0_OFFSET and OUTPUT0_PITCHES")
            raise KernelConfigError(msg)
        return np.ascontiguousarray(full[self._valid(shape)]).reshape(tuple(shape))


NO_PADDING = Padding()
