"""Op kernels split over a few threads: numpy's loops release the GIL, so blocks of an
elementwise kernel run side by side, as OpenBLAS's threads do for a GEMM. The calling thread
takes blocks too, and does itself any block no other thread has started by the time it is done
with its own: on a busy machine the work waits for no thread to be scheduled."""

from __future__ import annotations

import os
import queue
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache

__all__ = ["split"]

_MIN_WORK = 1 << 15  # elements per block below which one thread does it all
_MAX_DEFAULT = 8  # past a few threads, each block's calls (which hold the GIL) dominate


@cache
def threads() -> int:
    """The thread count: OpenBLAS's setting, else the CPUs this process may use (at most 8)."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        if os.environ.get(var, "").isdigit():
            return max(1, int(os.environ[var]))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(_MAX_DEFAULT, cpus or 1))


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(threads() - 1, thread_name_prefix="extgen-shim")


def split(fn: Callable[[int, int], None], count: int, work: int) -> None:
    """fn(start, stop) over blocks of [0, count), one block per thread where `work` (elements
    in all) gives each enough."""
    parts = min(threads(), count, work // _MIN_WORK)
    if parts <= 1:
        fn(0, count)
        return
    blocks: queue.SimpleQueue = queue.SimpleQueue()
    for i in range(parts):
        blocks.put((count * i // parts, count * (i + 1) // parts))

    def drain() -> None:
        while True:
            try:
                start, stop = blocks.get_nowait()
            except queue.Empty:
                return
            fn(start, stop)
    helpers = [_pool().submit(drain) for _ in range(parts - 1)]
    drain()
    for helper in helpers:
        if not helper.cancel():  # started: wait for the block it took
            helper.result()
