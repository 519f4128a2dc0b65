"""The README's main-job command: the bundled example runs and every engine/device agrees."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bundled_example_runs_and_agrees() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "cosh" / "run_example.py")],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.rstrip().endswith(("OK", "MISMATCH"))]
    assert len(rows) == 7 and all(r.rstrip().endswith("OK") for r in rows)
    assert "my.domain" not in done.stdout and "org.example::Cosh: 1 node(s) (cosh)" in done.stdout
