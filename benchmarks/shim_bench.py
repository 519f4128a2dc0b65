#!/usr/bin/env python3
"""Shim latency vs onnxruntime on the same model, same thread count, same run.

Usage: shim_bench.py [--threads N] [--runs N] [--block N] [--profile] [MODEL ...]
(default: all models)
The light zoo plus bert_base and convnext_tiny (benchmarks/transformer_zoo.py). Runs of the two
engines alternate in blocks so that a busy machine slows both alike; prints the medians, their
ratio shim/onnxruntime (target: at most 2x; also that of the fastest runs, steadier on a busy
machine), the shim's error against onnxruntime's output and the BLAS kernel numpy runs on.
OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE pin an old kernel, so the script restarts itself without
them. --profile adds the shim's top op types by time per model.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

_PINNED = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def _parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--block", type=int, default=5, help="runs of one engine before the other")
    ap.add_argument("--profile", action="store_true", help="print the shim's time per op type")
    ap.add_argument("models", nargs="*")
    return ap.parse_args()


def _clean_env(threads: int) -> None:
    """Restart the interpreter with the BLAS thread count set and no pinned kernel (OpenBLAS
    reads both when it loads, before any code here could change them)."""
    want = {v: str(threads) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                      "MKL_NUM_THREADS")}
    if all(os.environ.get(k) == v for k, v in want.items()) and not any(
            v in os.environ for v in _PINNED):
        return
    env = {k: v for k, v in os.environ.items() if k not in _PINNED} | want
    os.execve(sys.executable, [sys.executable, *sys.argv], env)


def _blas_kernel() -> str:
    from threadpoolctl import threadpool_info

    infos = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    return "; ".join(f"{i['internal_api']} {i.get('version')} {i.get('architecture')} "
                     f"{i['num_threads']} threads" for i in infos) or "unknown"


def _alternate(shim, ort_run, runs: int, block: int) -> tuple[list[float], list[float]]:
    """Milliseconds of each run of each, in alternating blocks of `block` runs (one warm-up
    each first). Blocks, not single runs: both engines' thread pools spin a while after a
    run, and on two cores that tail lands on the next run of the other engine."""
    shim()
    ort_run()
    ours, theirs = [], []
    while len(ours) < runs:
        for fn, times in ((shim, ours), (ort_run, theirs)):
            for _ in range(min(block, runs - len(times))):
                start = time.perf_counter()
                fn()
                times.append((time.perf_counter() - start) * 1000)
    return ours, theirs


def _profile(shim, feed: dict, runs: int) -> str:
    from converter.runtime.executor import OpTimes

    times = OpTimes()
    for _ in range(runs):
        shim.run(feed, times)
    total = sum(times.seconds.values())
    top = sorted(times.seconds.items(), key=lambda kv: -kv[1])[:6]
    return "  ".join(f"{op} {100 * s / total:.0f}%" for op, s in top)


def main() -> None:
    args = _parse()
    _clean_env(args.threads)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import numpy as np
    import onnxruntime as ort
    from _common import ZOO, ZOO_DIR, materialize
    from transformer_zoo import TRANSFORMERS, materialize_transformers

    from converter.options import ConvertOptions
    from converter.pipeline import convert
    from converter.runtime.engines import open_engine

    names = args.models or [*ZOO, *TRANSFORMERS]
    materialize([n for n in names if n in ZOO])
    materialize_transformers([n for n in names if n in TRANSFORMERS])
    print(f"BLAS: {_blas_kernel()}; threads={args.threads} runs={args.runs} "
          f"in blocks of {args.block}")
    print("| model | shim | onnxruntime | ratio | ratio of fastest | max error |\n"
          "|---|---|---|---|---|---|")
    notes = []
    for name in names:
        model = ZOO_DIR / f"{name}.onnx"
        x = np.load(ZOO_DIR / f"{name}.input.npy")
        expected = np.load(ZOO_DIR / f"{name}.expected.npy")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = args.threads
        session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
        feed_name = session.get_inputs()[0].name
        with tempfile.TemporaryDirectory() as tmp:
            xml = convert(ConvertOptions(model, output_dir=Path(tmp))).xml
            shim = open_engine("shim", xml)
            feed = {shim.inputs()[0].name: x}
            got = next(iter(shim.run(feed).values()))
            error = float(np.max(np.abs(got - expected)) / (np.max(np.abs(expected)) or 1))
            ours, theirs = _alternate(lambda: shim.run(feed),
                                      lambda: session.run(None, {feed_name: x}), args.runs,
                                      args.block)
            if args.profile:
                notes.append(f"{name}: {_profile(shim, feed, max(1, args.runs // 2))}")
        mine, other = statistics.median(ours), statistics.median(theirs)
        print(f"| {name} | {mine:.1f} ms | {other:.1f} ms | {mine / other:.2f}x "
              f"| {min(ours) / min(theirs):.2f}x | {error:.1e} |", flush=True)
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
