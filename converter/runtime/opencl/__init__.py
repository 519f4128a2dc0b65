"""GPU (SimpleGPU) and VPU (MVCL) devices that run user OpenCL kernels through pyopencl.

The devices are imported on first use, so the generator can read the XML contract
(`contract`, `expressions`) without loading pyopencl and the runtime."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["GpuDevice", "VpuDevice"]

_MODULES = {"GpuDevice": f"{__name__}.gpu", "VpuDevice": f"{__name__}.vpu"}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(_MODULES[name]), name)
