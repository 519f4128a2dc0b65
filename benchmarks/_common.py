"""Helpers shared by the benchmark scripts: the zoo models and child-process measurement."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from light_zoo import ZOO, cache_dir, materialize

__all__ = ["ROOT", "ZOO", "ZOO_DIR", "materialize", "measure"]

ROOT = Path(__file__).resolve().parents[1]
ZOO_DIR = cache_dir()


def measure(cmd: list[str]) -> tuple[float, float]:
    """Run cmd; return (wall seconds, peak RSS in MiB) of that child alone."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        msg = f"{' '.join(cmd)} failed: {err.strip()[-500:]}"
        raise RuntimeError(msg)
    return wall, usage.ru_maxrss / 1024
