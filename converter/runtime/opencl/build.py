"""The OpenCL device, and program builds cached in process and on disk (keyed by sha256)."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from converter import files
from converter.errors import KernelBuildError, KernelConfigError
from converter.files import write_atomic
from converter.progress import activity
from converter.runtime.opencl import device
from converter.runtime.opencl.positions import user_files, user_positions
from converter.runtime.quiet import native_stderr_logged, warnings_logged

__all__ = [
    "cache_dir", "chosen_device", "compile_count", "context", "disk_hits", "has_fp16", "kernel",
    "opencl", "program", "queue",
]

log = logging.getLogger("extgen")
_state: dict[str, Any] = {}
_programs: dict[str, Any] = {}
_kernels: dict[tuple[int, str], Any] = {}
_counts = {"compiled": 0, "disk": 0}


def compile_count() -> int:
    """How many programs this process compiled from source (cache hits do not count)."""
    return _counts["compiled"]


def disk_hits() -> int:
    """How many programs this process loaded from the on-disk binary cache."""
    return _counts["disk"]


def opencl() -> Any:
    """The pyopencl module, imported on first use."""
    device.llvm_clash()
    try:
        import pyopencl
    except (ImportError, OSError) as err:  # not installed, or built for another Python
        python = f"Python {sys.version_info.major}.{sys.version_info.minor}"
        msg = (f"GPU/VPU kernels need pyopencl, which does not load on {python} "
               f"({type(err).__name__}: {err}); pip install pyopencl pocl-binary-distribution "
               "(`extgen doctor opencl` checks it)")
        raise KernelBuildError(msg) from None
    return pyopencl


def chosen_device(refresh: bool = False) -> device.Candidate:
    """The device kernels run on: the first that builds and runs a probe kernel (device.py);
    refresh probes every device again instead of trusting remembered verdicts."""
    if "chosen" not in _state or refresh:
        wanted = os.environ.get("EXTGEN_OPENCL_DEVICE", "").strip()
        if wanted.lower() == "oclgrind":
            device.register_oclgrind(cache_dir() / "icd")
        cl = opencl()
        verdicts = device.Verdicts(cache_dir() / "devices.json")
        _state["chosen"] = device.choose(device.candidates(cl), wanted, verdicts,
                                         lambda cand: _probe(cl, cand), refresh)
        log.info("OpenCL device: %s", _state["chosen"].label)
    return _state["chosen"]


def _probe(cl: Any, cand: device.Candidate) -> str:
    device.llvm_clash(cand.platform)
    return device.probe(cl, cand)


def _device() -> tuple[Any, Any, Any]:
    if "ctx" not in _state:
        cl = opencl()
        dev = chosen_device().handle
        ctx = cl.Context([dev])
        _state.update(ctx=ctx, queue=cl.CommandQueue(ctx), device=dev)
    return _state["ctx"], _state["queue"], _state["device"]


def context() -> Any:
    """The OpenCL context of the chosen device."""
    return _device()[0]


def queue() -> Any:
    """The command queue every kernel runs on."""
    return _device()[1]


def has_fp16() -> bool:
    return "cl_khr_fp16" in _device()[2].extensions.split()


def cache_dir() -> Path:
    return files.cache_dir("opencl")


def _key(source: str, options: str) -> str:
    dev = _device()[2]
    parts = [dev.platform.name, dev.platform.version, dev.name, dev.driver_version, options, source]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


@contextlib.contextmanager
def quiet(label: str) -> Iterator[None]:
    """Around a driver call that may talk: its warnings (pyopencl's CompilerWarning) and what the
    driver's compiler prints to stderr (PoCL: "1 warning generated.") logged at DEBUG only."""
    with warnings_logged(label), native_stderr_logged(f"{label}: OpenCL driver"):
        # pyopencl's "Non-empty compiler output" says only that there is a build log; the
        # log itself is what _compile logs
        warnings.filterwarnings("ignore", category=opencl().CompilerWarning)
        yield


def _build_log(prg: Any) -> str:
    cl = opencl()
    try:
        return str(prg.get_build_info(_device()[2], cl.program_build_info.LOG)).strip()
    except cl.Error:  # a log to show in DEBUG, never worth failing over
        return ""


def _from_disk(key: str, options: str) -> Any:
    cl = opencl()
    ctx, _, dev = _device()
    file = cache_dir() / f"{key}.bin"
    try:
        binary = file.read_bytes()
        with quiet(f"cached OpenCL binary {file.name}"):
            prg = cl.Program(ctx, [dev], [binary]).build(options)
    except (OSError, cl.Error):
        return None
    _counts["disk"] += 1
    return prg


def _to_disk(key: str, prg: Any) -> None:
    try:
        binary = prg.binaries[0]
        write_atomic(cache_dir() / f"{key}.bin", lambda f: f.write(binary))
    except (OSError, IndexError) as err:
        log.debug("extgen: OpenCL binary cache not written (%s)", err)


def program(source: str, options: str, label: str) -> Any:
    """A built program for `source`: from memory, else from the disk cache, else compiled."""
    key = _key(source, options)
    prg = _programs.get(key)
    if prg is None:
        device.llvm_clash(_device()[2].platform.name)
        prg = _from_disk(key, options)
    if prg is None:
        prg = _compile(source, options, label)
        _counts["compiled"] += 1
        _to_disk(key, prg)
    _programs[key] = prg
    return prg


def _compile(source: str, options: str, label: str) -> Any:
    """The program built from source; a failed build raises one line: the compiler's first
    error at its place in the user's .cl file (the whole log goes to the DEBUG log)."""
    cl = opencl()
    try:
        with activity(f"building OpenCL {label}"), quiet(label):
            prg = cl.Program(_device()[0], source).build(options)
    except cl.Error as err:
        text = user_positions(str(err), source)
        log.debug("%s: OpenCL build log:\n%s", label, text)
        first = device.build_errors(text, limit=1)
        where = "" if any(f in first for f in user_files(source)) else (
            f" (in {', '.join(user_files(source)) or 'the generated preamble'})")
        msg = f"{label}: OpenCL build failed{where}: {first}; --log_level DEBUG shows the build log"
        raise KernelBuildError(msg) from None
    found = _build_log(prg)
    if found:
        log.debug("%s: OpenCL build log:\n%s", label, user_positions(found, source))
    return prg


def kernel(source: str, options: str, label: str, entry: str) -> Any:
    """The kernel `entry` of the built program, one object per program and entry."""
    prg = program(source, options, label)
    found = _kernels.get((id(prg), entry))
    if found is None:
        cl = opencl()
        try:
            found = cl.Kernel(prg, entry)
        except cl.Error:
            msg = f"{label}: the source defines no __kernel named '{entry}'"
            raise KernelConfigError(msg) from None
        _kernels[(id(prg), entry)] = found
    return found
