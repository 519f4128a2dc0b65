"""The loaded native library's functions, over float32 C-contiguous arrays (ctypes drops the
GIL for each call), each over up to native.threads() threads."""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from converter.ops.native import threads

__all__ = ["Kernels", "address"]

_P, _N = ctypes.c_void_p, ctypes.c_size_t
_FLOAT, _BYTE = np.dtype(np.float32), ctypes.c_char


class Kernels:
    """The functions of the library at `path`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        lib = ctypes.CDLL(str(path))
        self._gelu = _bind(lib.extgen_gelu, [_P, _P, _N, _N], None)
        self._depthwise = _bind(lib.extgen_depthwise2d, [_P] * 3 + [ctypes.c_int, _P] + [_N] * 12,
                                ctypes.c_int)
        self._pool = _bind(lib.extgen_pool2d, [_P, _P] + [_N] * 11 + [ctypes.c_int, _N],
                           ctypes.c_int)
        self._im2col = _bind(lib.extgen_im2col, [_P, _P] + [_N] * 12, None)
        self._bias_relu = _bind(lib.extgen_bias_relu, [_P, _P, _N, _N, _N, ctypes.c_int, _N],
                                None)
        self._affine_relu = _bind(lib.extgen_affine_relu,
                                  [_P] * 4 + [_N] * 3 + [ctypes.c_int, _N], None)
        self._add_relu = _bind(lib.extgen_add_relu, [_P, _P, _P, _N, ctypes.c_int, _N], None)
        self._layer_norm = _bind(lib.extgen_layer_norm,
                                 [_P, _P, _N, _N, ctypes.c_float, ctypes.c_int], None)
        self._packed_size = _bind(lib.extgen_packed_size, [_N, _N], _N)
        self._pack_rows = _bind(lib.extgen_pack_rows, [_P, _N, _N, _P], None)
        self._gemm = _bind(lib.extgen_gemm, [_P] * 4 + [_N] * 4 + [ctypes.c_int, _N], None)
        self._gemm_shifted = _bind(
            lib.extgen_gemm_shifted, [_P] * 3 + [_N] + [_P] * 2 + [_N] * 4 + [ctypes.c_int]
            + [_N] * 3, None)
        self._row_sums = _bind(lib.extgen_row_sums, [_P, _P, _N, _N, ctypes.c_float, _N], None)
        self._pad_channels = _bind(lib.extgen_pad_channels, [_P, _P] + [_N] * 12, None)
        self._columns_size = _bind(lib.extgen_packed_columns_size, [_N, _N], _N)
        self._pack_columns = _bind(lib.extgen_pack_columns, [_P, _N, _N, _P], None)
        self._gemm_packed_b = _bind(lib.extgen_gemm_packed_b,
                                    [_P] * 4 + [_N] * 3 + [ctypes.c_int, _N], None)

    def gelu(self, x: np.ndarray, out: np.ndarray) -> None:
        """out = x Phi(x) (erf form); out may be x."""
        self._gelu(address(x), address(out), x.size, threads())

    def depthwise2d(self, x: np.ndarray, w: np.ndarray, strides: Sequence[int],
                    pads_begin: Sequence[int], out: Sequence[int], bias: np.ndarray | None = None,
                    relu: bool = False) -> np.ndarray:
        """x [N, C, H, W] convolved per channel with w [C, kh, kw], unit dilations, zero
        padding pads_begin before and as much as out [oh, ow] needs after; + bias [C] if bias,
        then max(., 0) if relu."""
        n, c, h, wd = x.shape
        result = np.empty((n, c, *out), np.float32)
        for i in range(n):
            if self._depthwise(address(x[i]), address(w), address(bias), int(relu),
                               address(result[i]), c, h, wd, *out, *w.shape[1:], *strides,
                               *pads_begin, threads()):
                raise MemoryError("native depthwise convolution: out of memory")
        return result

    def pool2d(self, x: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
               pads_begin: Sequence[int], out: Sequence[int], is_max: bool) -> np.ndarray:
        """Max (-inf padding) or sum (0 padding) over the windows of x [N, C, H, W], unit
        dilations, pads_begin before and as much as out [oh, ow] needs after."""
        n, c, h, w = x.shape
        result = np.empty((n, c, *out), np.float32)
        if self._pool(address(x), address(result), n * c, h, w, *out, *kernel, *strides,
                      *pads_begin, int(is_max), threads()):
            raise MemoryError("native pooling: out of memory")
        return result

    def im2col(self, x: np.ndarray, cols: np.ndarray, kernel: Sequence[int],
               strides: Sequence[int], pads_begin: Sequence[int], out: Sequence[int]) -> None:
        """cols [N, C, kh * kw, oh * ow] = x [N, C, H, W] at each kernel position (unit
        dilations, zero padding pads_begin before and as much as out needs after)."""
        n, c, h, w = x.shape
        for i in range(n):
            self._im2col(address(x[i]), address(cols[i]), c, h, w, *out, *kernel,
                         *strides, *pads_begin, threads())

    def bias_relu(self, y: np.ndarray, bias: np.ndarray, relu: bool) -> None:
        """y [N, C, ...] += bias [C] per channel, then max(y, 0) if relu, in place."""
        self._bias_relu(address(y), address(bias), y.shape[0], y.shape[1],
                        y[0, 0].size, int(relu), threads())

    def affine_relu(self, x: np.ndarray, scale: np.ndarray, shift: np.ndarray,
                    relu: bool) -> np.ndarray:
        """x [N, C, ...] * scale [C] + shift [C] per channel, then max(., 0) if relu: new."""
        y = np.empty_like(x)
        self._affine_relu(address(x), address(y), address(scale), address(shift),
                          x.shape[0], x.shape[1], x[0, 0].size, int(relu), threads())
        return y

    def add_relu(self, a: np.ndarray, b: np.ndarray, relu: bool) -> np.ndarray:
        """a + b (same shape), then max(., 0) if relu: new."""
        y = np.empty_like(a)
        self._add_relu(address(a), address(b), address(y), a.size, int(relu), threads())
        return y

    def layer_norm(self, x: np.ndarray, eps: float, inside: bool) -> np.ndarray:
        """MVN of x over its last axis: (x - mean) / sqrt(var + eps) if inside, else
        / (sqrt(var) + eps); new."""
        y = np.empty_like(x)
        n = x.shape[-1]
        self._layer_norm(address(x), address(y), x.size // n, n, eps, int(inside))
        return y

    def pack_rows(self, a: np.ndarray) -> np.ndarray:
        """a [G, M, K] packed for gemm, group by group (once per constant matrix)."""
        size = self._packed_size(*a.shape[1:])
        packed = np.empty((a.shape[0], size), np.float32)
        for group, rows in zip(packed, a):
            self._pack_rows(address(rows), *a.shape[1:], address(group))
        return packed

    def gemm(self, packed: np.ndarray, b: np.ndarray, out: np.ndarray,
             bias: np.ndarray | None, relu: bool) -> None:
        """For each group g: out[g] [M, N] = a[g] [M, K] (as pack_rows made `packed`) @ b[g]
        [K, N], + bias[g] [M] per row if bias, then max(., 0) if relu."""
        if not b.shape[0] == out.shape[0] == packed.shape[0] or b.shape[2] != out.shape[2]:
            raise ValueError("native gemm: the shapes do not fit")
        self.gemm_call(packed, bias, relu, out.shape[1], *b.shape[1:])(address(b), address(out))

    def gemm_call(self, packed: np.ndarray, bias: np.ndarray | None, relu: bool, m: int, k: int,
                  n: int) -> Callable[[int, int], None]:
        """f(b, out) on addresses: gemm of data [G, K, N] into out [G, M, N], the constants
        and shapes checked once."""
        groups = packed.shape[0]
        if packed.shape != (groups, self._packed_size(m, k)) or (
                bias is not None and bias.shape != (groups, m)):
            raise ValueError("native gemm: the shapes do not fit")
        fn, a, bias_at = self._gemm, address(packed), address(bias)
        consts = (m, k, n, groups, int(relu), threads())
        return lambda b, out, alive=(packed, bias): fn(a, b, bias_at, out, *consts)

    def row_sums(self, x: np.ndarray, divisor: float) -> np.ndarray:
        """Sums of x [R, N] along its rows, each / divisor: [R], new."""
        out = np.empty(x.shape[0], np.float32)
        self._row_sums(address(x), address(out), *x.shape, divisor, threads())
        return out

    def pad_channels(self, x: np.ndarray, padded: np.ndarray, pads_begin: Sequence[int],
                     rows: int, width: int, strides: Sequence[int] = (1, 1)) -> None:
        """x [N, G * C, H, W] into padded [N, G, L] (L >= sh * sw * C * rows * width): for each
        phase (a, b) of the strides, each channel as rows x width holding x at (r sh + a,
        q sw + b) less pads_begin, zero outside x; zeros after each group's phases."""
        call = self.pad_channels_call(x.shape, padded.shape, pads_begin, rows, width, strides)
        call(address(x), address(padded))

    def pad_channels_call(self, shape: Sequence[int], padded: Sequence[int],
                          pads_begin: Sequence[int], rows: int, width: int,
                          strides: Sequence[int]) -> Callable[[int, int], None]:
        """f(x, padded) on addresses: pad_channels of data of `shape` into an array of shape
        `padded`, the shapes checked once."""
        n, groups, stride = padded
        channels = shape[1] // groups
        if (len(shape) != 4 or shape[0] != n or shape[1] != channels * groups
                or min(strides) < 1 or stride < math.prod(strides) * channels * rows * width):
            raise ValueError("native padding: the shapes do not fit")
        fn = self._pad_channels
        consts = (n * groups, channels, *shape[2:], rows, width, *pads_begin, *strides, stride,
                  threads())
        return lambda x, out: fn(x, out, *consts)

    def shifted_gemm(self, packed: np.ndarray, shifts: np.ndarray, bias: np.ndarray | None,
                     relu: bool, crop: tuple[int, int]) -> ShiftedGemm:
        """gemm over shifted rows of padded data, its constants checked once (ShiftedGemm)."""
        return ShiftedGemm(self, packed, shifts, bias, relu, crop)

    def pack_columns(self, b: np.ndarray) -> np.ndarray:
        """b [K, N] packed for gemm_packed_b (once per constant matrix)."""
        packed = np.empty(self._columns_size(*b.shape), np.float32)
        self._pack_columns(address(b), *b.shape, address(packed))
        return packed

    def gemm_packed_b(self, a: np.ndarray, packed: np.ndarray, out: np.ndarray,
                      bias: np.ndarray | None, relu: bool) -> None:
        """out [M, N] = a [M, K] @ b [K, N] (as pack_columns made `packed`), + bias [N] per
        column if bias, then max(., 0) if relu."""
        (m, k), n = a.shape, out.shape[1]
        if out.shape != (m, n) or packed.size != self._columns_size(k, n) or (
                bias is not None and bias.shape != (n,)):
            raise ValueError("native gemm: the shapes do not fit")
        self._gemm_packed_b(address(a), address(packed), address(bias), address(out), m, k,
                            n, int(relu), threads())


class ShiftedGemm:
    """f(b, out): a[g] (as pack_rows made `packed`) times the [K, N] matrix whose row p is
    b[g, shifts[p]:][:N] (b [G, L], each shift + N + 32 <= L), + bias [G, M] per row if bias,
    then max(., 0) if relu, cropped to the first `kept` of each `width` columns (crop) into
    out [G, M, N / width * kept]: a unit-stride convolution over padded rows (pad_channels),
    one call per batch item. The constants' checks and addresses are made once."""

    def __init__(self, kernels: Kernels, packed: np.ndarray, shifts: np.ndarray,
                 bias: np.ndarray | None, relu: bool, crop: tuple[int, int]) -> None:
        if shifts.dtype != np.uint64 or shifts.ndim != 1 or not shifts.size or (
                bias is not None and bias.shape[0] != packed.shape[0]):
            raise ValueError("native gemm: the shapes do not fit")
        self.kernels, self.arrays, self.relu = kernels, (packed, shifts, bias), int(relu)
        self.reach = int(shifts.max()) + 32
        self.width, self.kept = crop
        if not 0 < self.kept <= self.width:
            raise ValueError("native gemm: the crop does not fit")

    def __call__(self, b: np.ndarray, out: np.ndarray) -> None:
        if not b.shape[0] == out.shape[0] == self.arrays[0].shape[0]:
            raise ValueError("native gemm: the shapes do not fit")
        self.call(*out.shape[1:], b.shape[1])(address(b), address(out))

    def call(self, m: int, n: int, length: int) -> Callable[[int, int], None]:
        """f(b, out) on addresses, for b [G, length] and out [G, m, n], the shapes checked once."""
        packed, shifts, bias = self.arrays
        groups, k = packed.shape[0], shifts.size
        lines, cropped = divmod(n, self.kept)
        n = lines * self.width
        if (cropped or self.reach + n > length
                or packed.shape != (groups, self.kernels._packed_size(m, k))
                or (bias is not None and bias.shape[1] != m)):
            raise ValueError("native gemm: the shapes do not fit")
        fn, a, at_shifts, at_bias = (self.kernels._gemm_shifted, address(packed),
                                     shifts.ctypes.data, address(bias))
        consts = (m, k, n, groups, self.relu, self.width, self.kept, threads())
        return lambda b, out, alive=self.arrays: fn(a, b, at_shifts, length, at_bias, out,
                                                      *consts)


def _bind(fn: ctypes._CFuncPtr, argtypes: list, restype: type | None) -> ctypes._CFuncPtr:
    fn.argtypes, fn.restype = argtypes, restype
    return fn


def address(a: np.ndarray | None) -> int | None:
    """The address of a C-contiguous float32 array (None for None): through a ctypes view of
    its buffer, 5x quicker than a.ctypes.data, which stays for read-only arrays."""
    if a is None:
        return None
    if (a.dtype is not _FLOAT and a.dtype != _FLOAT) or not a.flags.c_contiguous:
        raise TypeError("native kernels take C-contiguous float32 arrays")
    try:
        return ctypes.addressof(_BYTE.from_buffer(a))
    except (TypeError, ValueError):  # read-only, or empty
        return a.ctypes.data
