"""Building the C sources here into one library once per machine: the C compiler ($CC, else cc,
gcc or clang) with -march=native, the library cached under cache_dir("native") by sources,
compiler and CPU, and written there atomically."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
from pathlib import Path

from converter.files import cache_dir, write_temp

__all__ = ["built_library"]

_HERE = Path(__file__).parent
_FLAGS = ["-O3", "-fno-math-errno", "-shared", "-fPIC", "-pthread"]  # sqrt inline, no libm
_COMPILE_SECONDS = 120


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


def built_library(target: str = "native") -> Path:
    """The compiled library for this CPU (or for the -march `target`: the tests build older
    ones), in the cache, built there (atomically) if missing."""
    cc = _compiler()
    flags = [*_FLAGS, f"-march={target}"]
    probe = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
    if probe.returncode:
        raise RuntimeError(f"the C compiler {cc} does not run (`{cc} --version` failed)")
    version = probe.stdout
    sources = sorted(_HERE.glob("*.c"))
    texts = [p.read_bytes() for p in sorted([*sources, *_HERE.glob("*.h")])]
    key = hashlib.sha256(b"\0".join(
        [*texts, version.encode(), " ".join(flags).encode(), _cpu().encode()])).hexdigest()
    path = cache_dir("native") / f"kernels-{key[:20]}.so"
    if not path.exists():
        tmp = write_temp(path, lambda f: None)
        try:
            done = subprocess.run([cc, *flags, "-o", str(tmp), *map(str, sources)],
                                  capture_output=True, text=True, timeout=_COMPILE_SECONDS)
            if done.returncode:
                raise RuntimeError(f"{cc} failed: {done.stderr.strip()[-400:]}")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    return path
