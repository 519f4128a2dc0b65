"""Buffers in and out of the OpenCL device, and one kernel launch with a clear error."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from converter.errors import KernelConfigError
from converter.ir.types import dtype_of
from converter.runtime.opencl import build

__all__ = ["download", "empty", "enqueue", "output_spec", "transfer_dtype", "upload", "warn_half",
           "warn_once"]

log = logging.getLogger("extgen")
_warned: set[str] = set()


def transfer_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a tensor travels in: f16 becomes f32 on a device without cl_khr_fp16, bool u8."""
    dtype = np.dtype(dtype)
    if dtype == np.float16 and not build.has_fp16():
        return np.dtype(np.float32)
    return np.dtype(np.uint8) if dtype == np.bool_ else dtype


def warn_once(key: str, text: str, level: int = logging.WARNING) -> None:
    """A one-line warning (or note, at another level), once per key in this process."""
    if key not in _warned:
        _warned.add(key)
        log.log(level, "%s", text)


def warn_half(label: str) -> None:
    """The one-line notice, once per kernel, that half runs as float on this device."""
    warn_once(label, f"{label} uses half but the OpenCL device has no cl_khr_fp16: "
              "running it in float32")


def upload(a: np.ndarray) -> Any:
    cl = build.opencl()
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    if a.nbytes == 0:
        return empty(1)
    return cl.Buffer(build.context(), flags, hostbuf=np.ascontiguousarray(a))


def empty(nbytes: int) -> Any:
    cl = build.opencl()
    return cl.Buffer(build.context(), cl.mem_flags.READ_WRITE, size=max(int(nbytes), 1))


def download(buf: Any, dtype: np.dtype, count: int) -> np.ndarray:
    out = np.empty(count, dtype=dtype)
    if count:
        build.opencl().enqueue_copy(build.queue(), out, buf)
    return out


def enqueue(kernel: Any, gws: Sequence[int], lws: Sequence[int], args: Sequence[Any],
            label: str) -> None:
    """Set the arguments and launch; an OpenCL error becomes one KernelConfigError line."""
    cl = build.opencl()
    if any(g <= 0 for g in gws) or any(n <= 0 for n in lws):
        msg = f"{label}: work sizes must be positive (global={list(gws)}, local={list(lws)})"
        raise KernelConfigError(msg)
    if lws and len(lws) != len(gws):
        msg = f"{label}: local work size {list(lws)} and global {list(gws)} differ in length"
        raise KernelConfigError(msg)
    try:
        kernel.set_args(*args)
        cl.enqueue_nd_range_kernel(build.queue(), kernel, tuple(gws), tuple(lws) or None)
        build.queue().finish()
    except cl.Error as err:
        msg = (f"{label}: launch failed with global={list(gws)}, local={list(lws) or 'auto'}: "
               f"{str(err).splitlines()[0]}")
        raise KernelConfigError(msg) from None


def output_spec(layer: Any, port: int,
                inputs: Sequence[np.ndarray]) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype of output `port` from the IR layer's port; a -1 dim (or no port info)
    falls back to input 0's shape, an empty precision to input 0's dtype."""
    if port >= len(layer.outputs):
        msg = f"layer '{layer.name}' ({layer.type}) has no output port index {port}"
        raise KernelConfigError(msg)
    out = layer.outputs[port]
    first = inputs[0] if inputs else None
    shape = tuple(out.dims)
    if any(d < 0 for d in shape):
        if first is None:
            msg = (f"layer '{layer.name}' ({layer.type}): output shape {list(shape)} is dynamic "
                   "and there is no input to take it from")
            raise KernelConfigError(msg)
        shape = tuple(first.shape)
    try:
        fallback = first.dtype if first is not None else np.dtype(np.float32)
        dtype = dtype_of(out.precision) if out.precision else fallback
    except ValueError as err:
        raise KernelConfigError(f"layer '{layer.name}' ({layer.type}): {err}") from None
    return shape, np.dtype(dtype)
