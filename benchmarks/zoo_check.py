#!/usr/bin/env python3
"""Accuracy on the nine light-zoo models: convert with extgen, run the IR in an engine, compare
with onnxruntime's reference output (tolerance 1e-4 relative to the output's max magnitude).

Usage: zoo_check.py [--engine openvino] [MODEL ...]   (default: all nine)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ZOO, ZOO_DIR, materialize  # noqa: E402


def check(name: str, engine: str) -> tuple[float, float]:
    """(relative max error, seconds to convert + run)."""
    import onnx

    from converter.onnx_backend import ExtgenBackend

    x = np.load(ZOO_DIR / f"{name}.input.npy")
    expected = np.load(ZOO_DIR / f"{name}.expected.npy")
    start = time.perf_counter()
    model = onnx.load(ZOO_DIR / f"{name}.onnx")
    (y,) = ExtgenBackend.prepare(model, engine=engine).run([x])[:1]
    seconds = time.perf_counter() - start
    return float(np.abs(y - expected).max() / np.abs(expected).max()), seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--engine", default="openvino")
    ap.add_argument("models", nargs="*", default=list(ZOO))
    args = ap.parse_args()
    materialize(args.models)
    failed = 0
    for name in args.models:
        try:
            err, secs = check(name, args.engine)
            ok = err <= 1e-4
            print(f"{name:14} rel_err={err:.2e} {'PASS' if ok else 'FAIL'} ({secs:.1f}s)")
        except Exception as exc:  # report and go on to the next model
            ok = False
            print(f"{name:14} ERROR {type(exc).__name__}: {str(exc)[:200]}")
        failed += not ok
    print(f"zoo: {len(args.models) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
