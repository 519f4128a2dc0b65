"""Helpers shared by the benchmark scripts: the zoo models and child-process measurement."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_BENCH = ROOT.parent / "shared" / "bench"
ZOO = ("resnet50", "vgg19", "densenet121", "inception_v1", "inception_v2", "shufflenet",
       "squeezenet", "bvlc_alexnet", "zfnet512")
ZOO_DIR = ROOT / ".bench" / "zoo"


def materialize(names: list[str], out: Path = ZOO_DIR) -> None:
    """Make <out>/<name>.onnx + .input.npy + .expected.npy for the names still missing."""
    missing = [n for n in names if not (out / f"{n}.expected.npy").exists()]
    if missing:
        out.mkdir(parents=True, exist_ok=True)
        script = SHARED_BENCH / "materialize_light.py"
        subprocess.run([sys.executable, str(script), str(out), *missing], check=True,
                       stdout=subprocess.DEVNULL)


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
