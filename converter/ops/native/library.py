"""The loaded native library's functions, over float32 C-contiguous arrays (ctypes drops the
GIL for each call)."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = ["Kernels"]

_P, _N = ctypes.c_void_p, ctypes.c_size_t


class Kernels:
    """The functions of the library at `path`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        lib = ctypes.CDLL(str(path))
        self._gelu = _bind(lib.extgen_gelu, [_P, _P, _N], None)
        self._depthwise = _bind(lib.extgen_depthwise2d, [_P, _P, _P] + [_N] * 11, ctypes.c_int)
        self._pool = _bind(lib.extgen_pool2d, [_P, _P] + [_N] * 11 + [ctypes.c_int],
                           ctypes.c_int)
        self._im2col = _bind(lib.extgen_im2col, [_P, _P] + [_N] * 11, None)
        self._bias_relu = _bind(lib.extgen_bias_relu, [_P, _P, _N, _N, _N, ctypes.c_int], None)
        self._affine_relu = _bind(lib.extgen_affine_relu, [_P] * 4 + [_N] * 3 + [ctypes.c_int],
                                  None)
        self._add_relu = _bind(lib.extgen_add_relu, [_P, _P, _P, _N, ctypes.c_int], None)
        self._layer_norm = _bind(lib.extgen_layer_norm,
                                 [_P, _P, _N, _N, ctypes.c_float, ctypes.c_int], None)

    def gelu(self, x: np.ndarray, out: np.ndarray) -> None:
        """out = x Phi(x) (erf form); out may be x."""
        _check(x, out)
        self._gelu(x.ctypes.data, out.ctypes.data, x.size)

    def depthwise2d(self, x: np.ndarray, w: np.ndarray, strides: Sequence[int],
                    pads_begin: Sequence[int], out: Sequence[int]) -> np.ndarray:
        """x [N, C, H, W] convolved per channel with w [C, kh, kw], unit dilations, zero
        padding pads_begin before and as much as out [oh, ow] needs after."""
        _check(x, w)
        n, c, h, wd = x.shape
        result = np.empty((n, c, *out), np.float32)
        for i in range(n):
            if self._depthwise(x[i].ctypes.data, w.ctypes.data, result[i].ctypes.data, c, h, wd,
                               *out, *w.shape[1:], *strides, *pads_begin):
                raise MemoryError("native depthwise convolution: out of memory")
        return result

    def pool2d(self, x: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
               pads_begin: Sequence[int], out: Sequence[int], is_max: bool) -> np.ndarray:
        """Max (-inf padding) or sum (0 padding) over the windows of x [N, C, H, W], unit
        dilations, pads_begin before and as much as out [oh, ow] needs after."""
        _check(x)
        n, c, h, w = x.shape
        result = np.empty((n, c, *out), np.float32)
        if self._pool(x.ctypes.data, result.ctypes.data, n * c, h, w, *out, *kernel, *strides,
                      *pads_begin, int(is_max)):
            raise MemoryError("native pooling: out of memory")
        return result


    def im2col(self, x: np.ndarray, cols: np.ndarray, kernel: Sequence[int],
               strides: Sequence[int], pads_begin: Sequence[int], out: Sequence[int]) -> None:
        """cols [N, C, kh * kw, oh * ow] = x [N, C, H, W] at each kernel position (unit
        dilations, zero padding pads_begin before and as much as out needs after)."""
        _check(x, cols)
        n, c, h, w = x.shape
        for i in range(n):
            self._im2col(x[i].ctypes.data, cols[i].ctypes.data, c, h, w, *out, *kernel,
                         *strides, *pads_begin)


    def bias_relu(self, y: np.ndarray, bias: np.ndarray, relu: bool) -> None:
        """y [N, C, ...] += bias [C] per channel, then max(y, 0) if relu, in place."""
        _check(y, bias)
        self._bias_relu(y.ctypes.data, bias.ctypes.data, y.shape[0], y.shape[1],
                        y[0, 0].size, int(relu))


    def affine_relu(self, x: np.ndarray, scale: np.ndarray, shift: np.ndarray,
                    relu: bool) -> np.ndarray:
        """x [N, C, ...] * scale [C] + shift [C] per channel, then max(., 0) if relu: new."""
        _check(x, scale, shift)
        y = np.empty_like(x)
        self._affine_relu(x.ctypes.data, y.ctypes.data, scale.ctypes.data, shift.ctypes.data,
                          x.shape[0], x.shape[1], x[0, 0].size, int(relu))
        return y

    def add_relu(self, a: np.ndarray, b: np.ndarray, relu: bool) -> np.ndarray:
        """a + b (same shape), then max(., 0) if relu: new."""
        _check(a, b)
        y = np.empty_like(a)
        self._add_relu(a.ctypes.data, b.ctypes.data, y.ctypes.data, a.size, int(relu))
        return y


    def layer_norm(self, x: np.ndarray, eps: float, inside: bool) -> np.ndarray:
        """MVN of x over its last axis: (x - mean) / sqrt(var + eps) if inside, else
        / (sqrt(var) + eps); new."""
        _check(x)
        y = np.empty_like(x)
        n = x.shape[-1]
        self._layer_norm(x.ctypes.data, y.ctypes.data, x.size // n, n, eps, int(inside))
        return y


def _bind(fn: ctypes._CFuncPtr, argtypes: list, restype: type | None) -> ctypes._CFuncPtr:
    fn.argtypes, fn.restype = argtypes, restype
    return fn


def _check(*arrays: np.ndarray) -> None:
    if any(a.dtype != np.float32 or not a.flags.c_contiguous for a in arrays):
        raise TypeError("native kernels take C-contiguous float32 arrays")
