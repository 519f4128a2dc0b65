"""The shim's native kernels (kernels.c): faster paths of a few built-in ops, compiled once per
machine with its C compiler ($CC, else cc, gcc or clang) for its own CPU, cached by source,
compiler and CPU, and loaded with ctypes. `kernels()` is None where there is no compiler, the
build fails or EXTGEN_NATIVE=0; every caller then keeps its numpy path. Each kernel is tested
against that path (tests/ops/test_native.py)."""

from __future__ import annotations

import ctypes
import functools
import hashlib
import logging
import os
import platform
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from converter.files import cache_dir, write_temp

__all__ = ["Kernels", "kernels", "why_not"]

log = logging.getLogger("extgen")

_SOURCE = Path(__file__).with_name("kernels.c")
_FLAGS = ["-O3", "-march=native", "-shared", "-fPIC"]
_COMPILE_SECONDS = 120
_P, _N = ctypes.c_void_p, ctypes.c_size_t
_why_not = ""


class Kernels:
    """The loaded library's functions, over float32 C-contiguous arrays."""

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


def _bind(fn: ctypes._CFuncPtr, argtypes: list, restype: type | None) -> ctypes._CFuncPtr:
    fn.argtypes, fn.restype = argtypes, restype
    return fn


def _check(*arrays: np.ndarray) -> None:
    if any(a.dtype != np.float32 or not a.flags.c_contiguous for a in arrays):
        raise TypeError("native kernels take C-contiguous float32 arrays")


@functools.cache
def kernels() -> Kernels | None:
    """The native kernels, built on first use; None where they cannot be had here."""
    global _why_not
    if os.environ.get("EXTGEN_NATIVE", "1").strip() == "0":
        _why_not = "switched off by EXTGEN_NATIVE=0"
        return None
    try:
        return Kernels(_library())
    except (OSError, subprocess.SubprocessError, RuntimeError) as err:
        _why_not = str(err)
        log.debug("extgen: native kernels unavailable, numpy paths run instead: %s", err)
        return None


def why_not() -> str:
    """Why kernels() gave None (after it did)."""
    return _why_not


def _compiler() -> str:
    for name in (os.environ.get("CC", "").strip(), "cc", "gcc", "clang"):
        if name and (path := shutil.which(name)):
            return path
    raise RuntimeError("no C compiler found (set CC)")


def _cpu() -> str:
    """The CPU's name and feature flags, which -march=native compiles for."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor()
    return "\n".join(sorted({ln for ln in lines if ln.startswith(("model name", "flags"))}))


def _library() -> Path:
    """The compiled library in the cache, built there (atomically) if missing."""
    cc = _compiler()
    probe = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
    if probe.returncode:
        raise RuntimeError(f"the C compiler {cc} does not run (`{cc} --version` failed)")
    version = probe.stdout
    source = _SOURCE.read_bytes()
    key = hashlib.sha256(b"\0".join(
        [source, version.encode(), " ".join(_FLAGS).encode(), _cpu().encode()])).hexdigest()
    path = cache_dir("native") / f"kernels-{key[:20]}.so"
    if not path.exists():
        tmp = write_temp(path, lambda f: None)
        try:
            done = subprocess.run([cc, *_FLAGS, "-o", str(tmp), str(_SOURCE)],
                                  capture_output=True, text=True, timeout=_COMPILE_SECONDS)
            if done.returncode:
                raise RuntimeError(f"{cc} failed: {done.stderr.strip()[-400:]}")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    return path
