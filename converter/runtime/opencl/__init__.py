"""GPU (SimpleGPU) and VPU (MVCL) devices that run user OpenCL kernels through pyopencl."""

from __future__ import annotations

from converter.runtime.opencl.gpu import GpuDevice
from converter.runtime.opencl.vpu import VpuDevice

__all__ = ["GpuDevice", "VpuDevice"]
