"""`extgen doctor`: check the system tools extgen's targets need, one line each, with the
command that installs what is missing."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import time
from collections.abc import Callable

HELP = ("check the C++ compiler, cmake, the shim's native kernels, the OpenCL device, Oclgrind "
        "and OpenVINO")
DESCRIPTION = (
    "Check what extgen's targets need on this machine and print one line per tool: 'ok' with\n"
    "what was found, or 'missing' with the command that installs it. The native check builds\n"
    "the shim's C kernels with the C compiler ($CC, else cc) once per machine (without them the\n"
    "shim runs slower numpy paths). The OpenCL check builds a probe kernel on each device until\n"
    "one works (always afresh here) and remembers the verdicts, so the GPU/VPU devices of\n"
    "`extgen run` start at once later. Oclgrind is the kernel debugger\n"
    "(EXTGEN_OPENCL_DEVICE=oclgrind). Exit status 0 when every checked tool is there, 1 otherwise."
)
EPILOG = "examples:\n  extgen doctor\n  extgen doctor opencl      # only the OpenCL device"

Check = Callable[[], tuple[bool, str]]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("checks", nargs="*", type=_check_name, metavar="CHECK",
                   help=f"what to check: {', '.join(_CHECKS)} (default: all)")


def _check_name(text: str) -> str:
    if text not in _CHECKS:
        msg = f"unknown check {text!r} (choose from {', '.join(_CHECKS)})"
        raise argparse.ArgumentTypeError(msg)
    return text


def run(args: argparse.Namespace) -> int:
    failed = 0
    for name in args.checks or _CHECKS:
        ok, text = _CHECKS[name]()
        print(f"{'ok' if ok else 'missing':8} {name:9} {text}", flush=True)
        failed += not ok
    return 1 if failed else 0


def _tool(names: tuple[str, ...], deb: str, rpm: str, purpose: str) -> tuple[bool, str]:
    from converter.system import install_command

    for name in names:
        path = shutil.which(name)
        if path:
            try:
                out = subprocess.run([path, "--version"], capture_output=True, text=True,
                                     check=False, timeout=20)
            except (OSError, subprocess.TimeoutExpired) as err:
                return False, f"{path} does not run ({err}); reinstall it"
            first = (out.stdout or out.stderr).strip().splitlines()[:1]
            return True, f"{first[0] if first else name} ({path})"
    how = install_command(deb, rpm) or f"install {deb} from your system's packages"
    return False, f"{names[0]} not found, {purpose}; install it: {how}"


def _cxx() -> tuple[bool, str]:
    return _tool(("c++", "g++", "clang++"), "g++", "gcc-c++", "needed to build the CPU target")


def _cmake() -> tuple[bool, str]:
    return _tool(("cmake",), "cmake", "cmake", "needed to build the CPU target")


def _native() -> tuple[bool, str]:
    from converter.ops import native
    from converter.system import install_command

    native.kernels.cache_clear()
    found = native.kernels()
    if found is not None:
        return True, f"the shim's native kernels ({found.path})"
    how = install_command("gcc", "gcc") or "install gcc from your system's packages"
    return False, (f"no native kernels ({native.why_not()}); the shim runs its slower numpy "
                   f"paths. For a C compiler: {how}")


def _opencl() -> tuple[bool, str]:
    from converter.runtime.opencl import build
    from extgen.errors import ExtgenError

    start = time.perf_counter()
    try:
        chosen = build.chosen_device(refresh=True)
    except ExtgenError as err:
        return False, str(err)
    took = time.perf_counter() - start
    return True, f"{chosen.label}, ready in {took:.2f} s (GPU and VPU kernels run here)"


def _oclgrind() -> tuple[bool, str]:
    return _tool(("oclgrind",), "oclgrind", "oclgrind",
                 "the kernel debugger behind EXTGEN_OPENCL_DEVICE=oclgrind")


def _openvino() -> tuple[bool, str]:
    try:
        import openvino
    except ImportError:
        return False, ("the openvino package is not installed (optional engine): "
                       "pip install openvino")
    version = re.sub(r"-.*", "", openvino.__version__)
    return True, f"OpenVINO runtime {version} (--engine openvino, CPU extension builds)"


_CHECKS: dict[str, Check] = {"c++": _cxx, "cmake": _cmake, "native": _native, "opencl": _opencl,
                             "oclgrind": _oclgrind, "openvino": _openvino}
