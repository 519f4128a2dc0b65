"""The README's main-job command: the bundled example runs and every engine agrees."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bundled_example_runs() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "quickstart.py")],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.strip().endswith(("OK", "MISMATCH"))]
    assert len(rows) == 2 and all(r.strip().endswith("OK") for r in rows)
