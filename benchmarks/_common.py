"""Helpers shared by the benchmark scripts: the zoo models and child-process measurement."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from light_zoo import ZOO, cache_dir, materialize

__all__ = ["EXTGEN", "ROOT", "ZOO", "ZOO_DIR", "materialize", "measure"]

ROOT = Path(__file__).resolve().parents[1]
ZOO_DIR = cache_dir()
# extgen from this checkout (measure puts ROOT first on the child's PYTHONPATH), whichever
# checkout the venv's console script was installed from
EXTGEN = [sys.executable, "-m", "extgen"]


# A child forked from this process starts with its peak RSS (the copied address space keeps
# the high-water mark), so cmd runs under a small launcher that forks it and reports its peak.
_LAUNCH = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(proc.pid, 0)
sys.stderr.write(proc.stderr.read().decode(errors="replace"))
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def measure(cmd: list[str]) -> tuple[float, float]:
    """Run cmd with this checkout first on PYTHONPATH; return (wall seconds, peak RSS in MiB)
    of that child alone."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _LAUNCH, *cmd], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": path})
    wall = time.perf_counter() - start
    code, peak = (int(v) for v in done.stdout.split())
    if code != 0:
        msg = f"{' '.join(cmd)} failed: {done.stderr.strip()[-500:]}"
        raise RuntimeError(msg)
    return wall, peak / 1024
