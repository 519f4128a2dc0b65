#!/usr/bin/env python3
"""Shim latency vs onnxruntime on the same model, same thread count, same run.

Usage: shim_bench.py [--threads N] [--runs N] [--block N] [--profile] [MODEL ...]
(default: all models)
The light zoo plus bert_base and convnext_tiny (benchmarks/transformer_zoo.py). onnxruntime runs
in a process of its own; runs of the two engines alternate in blocks, so that a busy machine
slows both alike, with a short pause and one unmeasured run before each block: both engines'
thread pools spin a while after a run, and in one process onnxruntime's spinning threads
slowed the shim's squeezenet from 5.4 to 14.4 ms, and the shim's idle OpenBLAS workers,
spinning for about 0.1 s after its last GEMM, slowed onnxruntime's from 2.0 to 7 ms.
Prints the medians, their ratio
shim/onnxruntime (target: at most 2x; also that of the fastest runs), the shim's error against
onnxruntime's output and the BLAS kernel numpy runs on. OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE pin
an old kernel, so the script restarts itself without them. --profile adds the shim's top op
types by time per model.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

_PINNED = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
# pause before each block of runs: OpenBLAS's idle workers spin for 2^28 cycles (about 0.1 s)
# after the shim's last GEMM, and with 0.05 s they slowed onnxruntime's squeezenet 2.0 -> 7 ms
_SETTLE_S = 0.3


def _parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--block", type=int, default=5, help="runs of one engine before the other")
    ap.add_argument("--profile", action="store_true", help="print the shim's time per op type")
    ap.add_argument("--pause", type=float, default=_SETTLE_S,
                    help="seconds of pause before each block (default %(default)s)")
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


def _ort_server(conn: Connection, model: str, threads: int) -> None:
    """onnxruntime in a process of its own: per request n, the model's n run times in ms."""
    import numpy as np
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    session = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    x = np.load(model.removesuffix(".onnx") + ".input.npy")
    feed = {session.get_inputs()[0].name: x}
    session.run(None, feed)  # warm-up
    while count := conn.recv():
        conn.send(_timed(lambda: session.run(None, feed), count)[1:])


def _timed(fn, count: int) -> list[float]:
    """Milliseconds of count + 1 runs of fn: the first wakes the engine's threads."""
    times = []
    for _ in range(count + 1):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def _alternate(shim, ort_conn: Connection, runs: int, block: int,
               pause: float) -> tuple[list[float], list[float]]:
    """Milliseconds of each run of each, in alternating blocks of `block` runs, each block
    after a pause that lets the other engine's threads stop spinning and one unmeasured run
    that wakes its own: each engine as it runs in a loop of its own."""
    shim()
    ours, theirs = [], []
    while len(ours) < runs:
        count = min(block, runs - len(ours))
        time.sleep(pause)
        ort_conn.send(count)
        theirs += ort_conn.recv()
        time.sleep(pause)
        ours += _timed(shim, count)[1:]
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
    spawn = multiprocessing.get_context("spawn")
    for name in names:
        model = ZOO_DIR / f"{name}.onnx"
        x = np.load(ZOO_DIR / f"{name}.input.npy")
        expected = np.load(ZOO_DIR / f"{name}.expected.npy")
        ort_conn, child_conn = spawn.Pipe()
        server = spawn.Process(target=_ort_server, args=(child_conn, str(model), args.threads))
        server.start()
        with tempfile.TemporaryDirectory() as tmp:
            xml = convert(ConvertOptions(model, output_dir=Path(tmp))).xml
            shim = open_engine("shim", xml)
            feed = {shim.inputs()[0].name: x}
            got = next(iter(shim.run(feed).values()))
            error = float(np.max(np.abs(got - expected)) / (np.max(np.abs(expected)) or 1))
            ours, theirs = _alternate(lambda: shim.run(feed), ort_conn, args.runs, args.block,
                                      args.pause)
            ort_conn.send(0)
            server.join()
            if args.profile:
                notes.append(f"{name}: {_profile(shim, feed, max(1, args.runs // 2))}")
        mine, other = statistics.median(ours), statistics.median(theirs)
        print(f"| {name} | {mine:.1f} ms | {other:.1f} ms | {mine / other:.2f}x "
              f"| {min(ours) / min(theirs):.2f}x | {error:.1e} |", flush=True)
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
