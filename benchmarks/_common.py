"""Helpers shared by the benchmark scripts: the zoo models and child-process measurement."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from light_zoo import ZOO, cache_dir, materialize

__all__ = ["ROOT", "ZOO", "ZOO_DIR", "materialize", "measure"]

ROOT = Path(__file__).resolve().parents[1]
ZOO_DIR = cache_dir()


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
    """Run cmd; return (wall seconds, peak RSS in MiB) of that child alone."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _LAUNCH, *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - start
    code, peak = (int(v) for v in done.stdout.split())
    if code != 0:
        msg = f"{' '.join(cmd)} failed: {done.stderr.strip()[-500:]}"
        raise RuntimeError(msg)
    return wall, peak / 1024
