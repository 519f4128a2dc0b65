"""`extgen doctor`: check the system tools and packages extgen's targets use, one line each,
with what a missing one is for and the command that installs it. Generating extensions needs
none of them; the required ones build and run what it generates, the optional ones add to it."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import logging
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

log = logging.getLogger("extgen")


@dataclass(frozen=True)
class Part:
    """One check: whether the main job needs it (when no check is named) and what it gives."""

    required: bool
    gives: str


PARTS: dict[str, Part] = {
    "c++": Part(True, "building the CPU target (the generated C++ extension)"),
    "cmake": Part(True, "building the CPU target"),
    "native": Part(False, "the shim's native C kernels, faster than its numpy paths"),
    "opencl": Part(True, "running GPU and VPU kernels (extgen run --device GPU|VPU, extgen test)"),
    "oclgrind": Part(False, "the kernel debugger (EXTGEN_OPENCL_DEVICE=oclgrind: out-of-bounds "
                     "reports)"),
    "openvino": Part(False, "the OpenVINO runtime (--engine openvino; the CPU target's OpenVINO "
                     "library)"),
}

HELP = ("check the C++ compiler, cmake, the shim's native kernels, the OpenCL device, Oclgrind "
        "and OpenVINO")
DESCRIPTION = (
    "Check what extgen's targets use on this machine and print one line per part: 'ok' with\n"
    "what was found; 'missing' (a required part) or 'optional' (one that would add to extgen)\n"
    "with what it is for and the command that installs it. Generating extensions needs none.\n"
    + "".join(f"  {name:9} {'required' if part.required else 'optional'}: {part.gives}\n"
              for name, part in PARTS.items())
    + "The native check builds the shim's C kernels with the C compiler ($CC, else cc) once per\n"
    "machine. The OpenCL check builds a probe kernel on each device until one works (always\n"
    "afresh here) and remembers the verdicts, so the GPU/VPU devices of `extgen run` start at\n"
    "once later. Exit status 1 when a required part is missing (every part named on the command\n"
    "line is required), 0 otherwise."
)
EPILOG = ("examples:\n  extgen doctor\n  extgen doctor opencl      # only the OpenCL device, "
          "required\n  extgen doctor c++ cmake opencl oclgrind   # what the tests need")

Check = Callable[[], tuple[bool, str]]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("checks", nargs="*", type=_check_name, metavar="CHECK",
                   help=f"what to check, each then required: {', '.join(PARTS)} (default: all, "
                   "the optional ones too)")


def _check_name(text: str) -> str:
    if text not in PARTS:
        msg = f"unknown check {text!r} (choose from {', '.join(PARTS)})"
        raise argparse.ArgumentTypeError(msg)
    return text


def run(args: argparse.Namespace) -> int:
    failed = 0
    for name in args.checks or PARTS:
        required = bool(args.checks) or PARTS[name].required
        ok, text = _safely(name)
        if ok:
            status = "ok"
        else:
            status = "missing" if required else "optional"
            role = "needed for" if required else "it would add"
            text = f"{text}; {role} {PARTS[name].gives}"
        print(f"{status:8} {name:9} {text}", flush=True)
        failed += required and not ok
    return 1 if failed else 0


def _safely(name: str) -> tuple[bool, str]:
    """A check's verdict; a check that breaks (a package that does not load here) is a
    'missing' line too, never a traceback (that goes to the DEBUG log)."""
    try:
        return _CHECKS[name]()
    except Exception as err:  # noqa: BLE001 - the doctor reports what is broken, and goes on
        log.debug("extgen doctor %s", name, exc_info=True)
        return False, f"the check failed: {type(err).__name__}: {_first_line(err)}"


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [""])[0][:200]


def _python() -> str:
    return f"Python {sys.version_info.major}.{sys.version_info.minor}"


def _package(module: str, dist: str, install: str) -> tuple[ModuleType | None, str]:
    """(module, '') when `module` imports; else (None, why not in one line, with the fix)."""
    try:
        version = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None, (f"the {dist} package is not installed; install it: {install} (if pip "
                      f"finds no version of it, {dist} has no wheel for {_python()}: use a "
                      "Python it has wheels for)")
    try:
        return importlib.import_module(module), ""
    except Exception as err:  # noqa: BLE001 - a broken install: ImportError, OSError, ...
        return None, (f"{dist} {version} is installed but does not load on {_python()} "
                      f"({type(err).__name__}: {_first_line(err)}); reinstall it: "
                      f"{install.replace('pip install', 'pip install --force-reinstall')}, "
                      f"or use a Python {dist} has wheels for")


def _tool(names: tuple[str, ...], deb: str, rpm: str) -> tuple[bool, str]:
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
    return False, f"{names[0]} not found; install it: {how}"


def _cxx() -> tuple[bool, str]:
    return _tool(("c++", "g++", "clang++"), "g++", "gcc-c++")


def _cmake() -> tuple[bool, str]:
    return _tool(("cmake",), "cmake", "cmake")


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
    module, why = _package("pyopencl", "pyopencl", "pip install pyopencl pocl-binary-distribution")
    if module is None:
        return False, why
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
    return _tool(("oclgrind",), "oclgrind", "oclgrind")


def _openvino() -> tuple[bool, str]:
    module, why = _package("openvino", "openvino", "pip install openvino")
    if module is None:
        return False, why
    version = re.sub(r"-.*", "", getattr(module, "__version__", "?"))
    return True, f"OpenVINO runtime {version} (--engine openvino, CPU extension builds)"


_CHECKS: dict[str, Check] = {"c++": _cxx, "cmake": _cmake, "native": _native, "opencl": _opencl,
                             "oclgrind": _oclgrind, "openvino": _openvino}
