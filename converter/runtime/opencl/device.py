"""Choose the OpenCL device by trying it: a probe kernel is built and run on each candidate in
order, the first that works is used, and each verdict is remembered per host, platform, device
and driver version, so only the first run on a machine pays for the probe."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from converter.errors import KernelBuildError
from converter.files import write_atomic
from converter.runtime.quiet import native_stderr_logged, warnings_logged
from converter.system import install_command

__all__ = ["Candidate", "Verdicts", "build_errors", "candidates", "choose", "driver_fix",
           "llvm_clash", "probe", "register_oclgrind"]

log = logging.getLogger("extgen")

PROBE_SOURCE = """
__kernel void extgen_probe(__global float* x) {
    const size_t i = get_global_id(0);
    x[i] = x[i] * 2.0f + 1.0f;
}
"""


@dataclass(frozen=True)
class Candidate:
    """One OpenCL device as a probe sees it; `handle` is the pyopencl device."""

    platform: str
    device: str
    driver: str
    version: str = ""
    index: tuple[int, int] = (0, 0)
    handle: Any = field(default=None, compare=False, repr=False)

    @property
    def label(self) -> str:
        return f"{self.device} ({self.platform}, driver {self.driver})"

    def matches(self, wanted: str) -> bool:
        """EXTGEN_OPENCL_DEVICE: 'P:D' (platform and device index) or a name substring."""
        m = re.fullmatch(r"(\d+):(\d+)", wanted)
        if m:
            return self.index == (int(m[1]), int(m[2]))
        return wanted.lower() in f"{self.device} {self.platform}".lower()


def candidates(cl: Any) -> list[Candidate]:
    """Every device of every platform pyopencl sees, in the ICD loader's order."""
    found = []
    try:
        platforms = cl.get_platforms()
    except cl.Error as err:
        log.debug("extgen: no OpenCL platforms: %s", err)
        return []
    for p_index, plat in enumerate(platforms):
        try:
            devices = plat.get_devices()
        except cl.Error as err:
            log.debug("extgen: OpenCL platform %s lists no devices: %s", plat.name, err)
            continue
        for d_index, dev in enumerate(devices):
            found.append(Candidate(plat.name.strip(), dev.name.strip(), dev.driver_version.strip(),
                                   plat.version.strip(), (p_index, d_index), dev))
    return found


def llvm_clash(platform: str | None = None) -> None:
    """Refuse OpenCL on PoCL in a process that imported TensorFlow: PoCL's compiler and
    TensorFlow each bring their own LLVM, and listing the platforms or building a kernel then
    crashes the process (segfault) or hangs it. platform: the device's, None before the
    platforms are listed (then any PoCL the ICD loader would load counts)."""
    if "tensorflow" not in sys.modules:
        return
    pocl = ("portable computing language" in platform.lower()) if platform else _pocl_registered()
    if pocl:
        raise KernelBuildError(
            "OpenCL kernels cannot run on PoCL in a process that imported TensorFlow (both "
            "load LLVM, and the process crashes); run them in a process of their own "
            "(`extgen run`, or a subprocess without TensorFlow)")


@functools.cache
def _pocl_registered() -> bool:
    """Whether the OpenCL ICD loader would load PoCL (pyopencl's wheel, or a vendors file)."""
    if importlib.util.find_spec("pocl_binary_distribution") is not None:
        return True
    named = os.environ.get("OCL_ICD_FILENAMES", "") + os.environ.get("OCL_ICD_VENDORS", "")
    if "pocl" in named.lower():
        return True
    vendors = Path(os.environ.get("OCL_ICD_VENDORS") or "/etc/OpenCL/vendors")
    try:
        return any("pocl" in f.name.lower() or "pocl" in f.read_text().lower()
                   for f in vendors.glob("*.icd"))
    except OSError:
        return False


def probe(cl: Any, cand: Candidate) -> str:
    """'' when the probe kernel builds and computes right on `cand`, else the reason."""
    import numpy as np

    try:
        ctx = cl.Context([cand.handle])
        with (warnings_logged(f"OpenCL probe on {cand.label}"),
              native_stderr_logged(f"OpenCL probe on {cand.label}")):  # a driver's chatter
            prg = cl.Program(ctx, PROBE_SOURCE).build()
        queue = cl.CommandQueue(ctx)
        host = np.arange(4, dtype=np.float32)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
        prg.extgen_probe(queue, (4,), None, buf)
        out = np.empty_like(host)
        cl.enqueue_copy(queue, out, buf)
        queue.finish()
    except cl.Error as err:
        return build_errors(str(err), limit=1)
    if not np.array_equal(out, host * 2 + 1):
        return f"the probe kernel computed {out.tolist()} instead of {(host * 2 + 1).tolist()}"
    return ""


def build_errors(log_text: str, limit: int = 4) -> str:
    """The error lines of an OpenCL build log (pyopencl's own wrapper lines left out), joined
    on one line; the last line of the log when none says error."""
    lines = [ln.strip() for ln in log_text.splitlines()]
    noise = r"clBuildProgram failed|failed to build the program|errors? generated"
    errors = [ln for ln in lines if re.search(r"\berror\b", ln, re.I) and not re.search(noise, ln)]
    errors = [ln[:200] for ln in (errors or [ln for ln in lines if ln][-1:] or ["unknown error"])]
    more = f" (+{len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(errors[:limit]) + more


class Verdicts:
    """Probe results in a JSON file: {key: reason}, '' meaning the device works."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = self._read()

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    @staticmethod
    def key(cand: Candidate) -> str:
        text = "\0".join((_host(), cand.platform, cand.version, cand.device, cand.driver))
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def get(self, cand: Candidate) -> str | None:
        value = self.data.get(self.key(cand))
        return value if isinstance(value, str) else None

    def put(self, cand: Candidate, reason: str) -> None:
        """Record a verdict, keeping those another process wrote meanwhile."""
        self.data = {**self._read(), self.key(cand): reason}
        text = json.dumps(self.data, indent=1).encode()
        try:
            write_atomic(self.path, lambda f: f.write(text))
        except OSError as err:
            log.debug("extgen: OpenCL probe verdicts not saved (%s)", err)


def _host() -> str:
    """The CPU, as far as it decides whether a CPU driver's compiler knows it."""
    try:
        first = Path("/proc/cpuinfo").read_text().split("\n\n", 1)[0]
    except OSError:
        first = ""
    pairs = (ln.split(":", 1) for ln in first.splitlines() if ":" in ln)
    keep = [v.strip() for k, v in pairs if k.strip() in ("vendor_id", "cpu family", "model",
                                                         "model name")]
    return "|".join([os.uname().machine, *keep])


def choose(cands: Iterable[Candidate], wanted: str, verdicts: Verdicts,
           try_device: Callable[[Candidate], str], refresh: bool = False) -> Candidate:
    """The first candidate that works: those matching `wanted` only, when it is set. With
    refresh, every device is probed again (a remembered failure may have been passing)."""
    cands = list(cands)
    if wanted:
        pool = [c for c in cands if c.matches(wanted)]
        if not pool:
            have = ", ".join(c.label for c in cands) or "none"
            msg = f"EXTGEN_OPENCL_DEVICE={wanted!r} matches no OpenCL device (have: {have})"
            raise KernelBuildError(msg)
    else:
        pool = cands
    failures = []
    for cand in pool:
        reason = None if refresh else verdicts.get(cand)
        if reason is None:
            reason = try_device(cand)
            verdicts.put(cand, reason)
            log.info("OpenCL probe: %s: %s", cand.label, reason or "works")
        if not reason:
            return cand
        failures.append(f"{cand.label}: {reason}")
    raise KernelBuildError(_nothing_builds(failures, wanted))


def _nothing_builds(failures: list[str], wanted: str) -> str:
    if wanted:
        return (f"EXTGEN_OPENCL_DEVICE={wanted!r}: the device cannot build kernels: "
                f"{'; '.join(failures)}; unset EXTGEN_OPENCL_DEVICE or name another device")
    tried = "; ".join(failures) if failures else "no OpenCL device found"
    return (f"no OpenCL device can build kernels ({tried}); fix: {driver_fix()} "
            "(`extgen doctor opencl` probes every device again)")


def driver_fix() -> str:
    """How to install a CPU OpenCL driver (PoCL) on this system."""
    command = install_command("pocl-opencl-icd", "pocl")
    where = f": {command}" if command else " (PoCL) from your system's packages"
    return f"install a CPU OpenCL driver{where}, or set EXTGEN_OPENCL_DEVICE to a device that works"


OCLGRIND_LIBS = ("/usr/lib/oclgrind/liboclgrind-rt-icd.so",
                 "/usr/lib/x86_64-linux-gnu/liboclgrind-rt-icd.so",
                 "/usr/local/lib/liboclgrind-rt-icd.so")


def register_oclgrind(icd_dir: Path) -> None:
    """Make Oclgrind (a simulator that reports out-of-bounds accesses) an OpenCL platform.

    The ICD loader reads its vendor list once, so this runs before the first platform query:
    it writes a vendor folder holding the system's .icd files plus Oclgrind's."""
    binary = shutil.which("oclgrind")
    libs = list(OCLGRIND_LIBS)
    if binary:
        prefix = Path(binary).resolve().parents[1]
        libs.insert(0, str(prefix / "lib/oclgrind/liboclgrind-rt-icd.so"))
    lib = next((p for p in libs if Path(p).is_file()), None)
    if lib is None:
        how = install_command("oclgrind", "oclgrind") or "from your system's packages"
        msg = f"EXTGEN_OPENCL_DEVICE='oclgrind': Oclgrind is not installed; install it: {how}"
        raise KernelBuildError(msg)
    system = Path(os.environ.get("OCL_ICD_VENDORS") or "/etc/OpenCL/vendors")
    if system.resolve() == icd_dir.resolve():
        system = Path("/etc/OpenCL/vendors")
    icd_dir.mkdir(parents=True, exist_ok=True)
    for old in icd_dir.glob("*.icd"):
        old.unlink()
    for icd in sorted(system.glob("*.icd")) if system.is_dir() else []:
        shutil.copyfile(icd, icd_dir / icd.name)
    (icd_dir / "extgen-oclgrind.icd").write_text(lib + "\n")
    os.environ["OCL_ICD_VENDORS"] = str(icd_dir)
