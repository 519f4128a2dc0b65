"""numpy's OpenBLAS held at one thread while the shim runs on the native kernels' own threads.
An OpenBLAS worker spins for about 0.1 s after each call it takes part in; beside the native
pool's workers on the same cores it stalls them, and a model with one numpy GEMM (a final
classifier) would pay for it on every run. Where numpy runs on another BLAS, or the library
cannot be found, nothing changes."""

from __future__ import annotations

import contextlib
import ctypes
import functools
from collections.abc import Iterator
from pathlib import Path

__all__ = ["one_blas_thread"]

_NAMES = [(f"{prefix}get_num_threads{suffix}", f"{prefix}set_num_threads{suffix}")
          for prefix in ("scipy_openblas_", "openblas_")  # numpy's wheels, system builds
          for suffix in ("64_", "")]  # 64-bit-integer builds mark their symbols


def _control(path: str) -> tuple[ctypes._CFuncPtr, ctypes._CFuncPtr] | None:
    """The (get, set) thread-count functions of the OpenBLAS at path."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    for get_name, set_name in _NAMES:
        get, put = getattr(lib, get_name, None), getattr(lib, set_name, None)
        if get is not None and put is not None:
            get.restype, put.argtypes = ctypes.c_int, [ctypes.c_int]
            return get, put
    return None


@functools.cache
def _controls() -> list[tuple[ctypes._CFuncPtr, ctypes._CFuncPtr]]:
    """The thread-count controls of each OpenBLAS loaded in this process."""
    import numpy  # noqa: F401  (loads numpy's BLAS, if nothing has yet)

    try:
        maps = Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return []
    paths = sorted({ln.split()[-1] for ln in maps if "openblas" in ln.rsplit("/", 1)[-1]})
    return [c for c in map(_control, paths) if c is not None]


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """numpy's OpenBLAS on one thread inside the block, as it was after."""
    controls = _controls()
    before = [get() for get, _ in controls]
    for _, put in controls:
        put(1)
    try:
        yield
    finally:
        for (_, put), count in zip(controls, before):
            put(count)
