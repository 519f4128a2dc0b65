#!/usr/bin/env python3
"""Shim latency vs onnxruntime on the same model, same thread count, same run.

Usage: shim_bench.py [--threads N] [--runs N] [MODEL ...]   (default: resnet50)
Prints median latencies and the ratio shim/onnxruntime. Target now: at most 4x on resnet50.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ZOO_DIR, materialize  # noqa: E402


def _median_ms(fn, runs: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("models", nargs="*", default=["resnet50"])
    args = ap.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    import numpy as np
    import onnxruntime as ort

    from converter.options import ConvertOptions
    from converter.pipeline import convert
    from converter.runtime.engines import open_engine

    materialize(args.models)
    print(f"threads={args.threads} runs={args.runs}")
    for name in args.models:
        model = ZOO_DIR / f"{name}.onnx"
        x = np.load(ZOO_DIR / f"{name}.input.npy")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = args.threads
        session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
        feed_name = session.get_inputs()[0].name
        with tempfile.TemporaryDirectory() as tmp:
            xml = convert(ConvertOptions(model, output_dir=Path(tmp))).xml
            shim = open_engine("shim", xml)
            shim_name = shim.inputs()[0][0]
            ours = _median_ms(lambda: shim.run({shim_name: x}), args.runs)
        theirs = _median_ms(lambda: session.run(None, {feed_name: x}), args.runs)
        print(f"{name:14} shim {ours:8.1f} ms   onnxruntime {theirs:8.1f} ms   "
              f"ratio {ours / theirs:5.2f}x")


if __name__ == "__main__":
    main()
