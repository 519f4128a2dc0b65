"""The shim's native kernels (the C files here): faster paths of built-in ops, compiled once per
machine with its C compiler for its own CPU (build.py) and loaded with ctypes (library.py).
`kernels()` is None where there is no compiler, the build fails or EXTGEN_NATIVE=0; every caller
then keeps its numpy path. Each kernel is tested against that path (tests/ops/test_native.py).
Imported lazily: nothing here runs until a plan asks for a kernel."""

from __future__ import annotations

import functools
import logging
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from converter.ops.native.library import Kernels

__all__ = ["kernels", "threads", "why_not"]

log = logging.getLogger("extgen")
_why_not = ""


@functools.cache
def kernels() -> Kernels | None:
    """The native kernels, built on first use; None where they cannot be had here."""
    global _why_not
    if os.environ.get("EXTGEN_NATIVE", "1").strip() == "0":
        _why_not = "switched off by EXTGEN_NATIVE=0"
        return None
    import subprocess

    from converter.ops.native.build import built_library
    from converter.ops.native.library import Kernels

    try:
        return Kernels(built_library())
    except (OSError, subprocess.SubprocessError, RuntimeError) as err:
        _why_not = str(err)
        log.debug("extgen: native kernels unavailable, numpy paths run instead: %s", err)
        return None


def why_not() -> str:
    """Why kernels() gave None (after it did)."""
    return _why_not


@functools.cache
def threads() -> int:
    """How many threads the native kernels may use: OPENBLAS_NUM_THREADS or OMP_NUM_THREADS, as
    numpy's BLAS does, else the CPUs this process may run on."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
