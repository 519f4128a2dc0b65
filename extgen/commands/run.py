"""`extgen run`: execute an IR in the shim (or real OpenVINO) with custom kernels."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from converter.errors import not_in_model
from extgen.errors import InputFileError, UsageError

HELP = "run an IR in extgen's runtime shim or in OpenVINO, with custom kernels"
DESCRIPTION = """\
Run an OpenVINO IR (.xml + .bin). The shim executes every built-in op with the same numpy code the
converter folds constants with, and custom ops with your kernels: a CPU library built from the
generated C++ (--extension), OpenCL kernels under the GPU (SimpleGPU) or VPU (MVCL) XML contract
(--config), run through pyopencl. Devices: CPU, GPU, VPU, or HETERO:GPU,CPU (a custom op runs on
the first device that has a kernel for it). VPU is legacy: OpenVINO loads MVCL kernels only up
to 2022.3 (MYRIAD plugin); the shim runs them anywhere."""
EPILOG = (
    "examples:\n"
    "  extgen run ir/model.xml --input image=image.npy --output out.npz\n"
    "  extgen run --model ir/model.xml --device HETERO:GPU,CPU"
    " --config user_ie_extensions/gpu/cosh_kernel.xml\n"
    "  extgen run --model ir/model.xml --extension build/libuser_cpu_extension.so --compare\n"
    "  extgen run --model ir/model.xml --input random --benchmark 20"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model_file", nargs="?", type=Path, metavar="M.xml",
                   help="the IR .xml (or --model)")
    p.add_argument("--model", "-m", type=Path, metavar="M.xml", help="the IR .xml")
    p.add_argument("--input", "-i", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input from a .npy file (repeat per input); NAME=random, or plain "
                   "'random' for every input not given, feeds seeded random data")
    p.add_argument("--output", "-o", type=Path, metavar="OUT.npz", help="save all outputs here")
    p.add_argument("--device", "-d", default="CPU",
                   help="CPU, GPU, VPU or HETERO:DEV1,DEV2 (default: CPU)")
    p.add_argument("--extension", "-l", action="append", default=[], type=Path,
                   metavar="LIB.so|DIR",
                   help="CPU kernels: a library built from the generated C++, or an extensions "
                   "folder whose ops/ have a numpy evaluate (in OpenVINO they run as Python ops); "
                   "repeatable")
    p.add_argument("--config", "-c", action="append", default=[], type=Path, metavar="KERNELS.xml",
                   help="GPU (SimpleGPU) or VPU (MVCL) custom kernel XML (repeatable)")
    p.add_argument("--engine", choices=["shim", "openvino"], default="shim",
                   help="shim: extgen's runtime (default); openvino: the real OpenVINO runtime")
    p.add_argument("--benchmark", type=int, default=0, metavar="N",
                   help="run N times and print latency min/median/max, then the time per op type "
                   "(as benchmark_app -pc) to show where a custom op's kernel sits; the shim's "
                   "GEMMs use OPENBLAS_NUM_THREADS threads: on a busy machine set it to 1")
    p.add_argument("--compare", action="store_true",
                   help="run both engines and print the max abs difference per output; exit 1 "
                   "when an output differs beyond --tolerance")
    p.add_argument("--tolerance", type=float, default=1e-4, metavar="T",
                   help="for --compare: an output agrees when its max abs difference is at most "
                   "T times max(1, its largest magnitude) (default: 1e-4)")


RANDOM = "random"


def _load_inputs(specs: list[str]) -> dict:
    """NAME -> array, or -> RANDOM; the key '' (plain `--input random`) covers the rest."""
    import numpy as np

    feed: dict = {}
    for spec in specs:
        if spec == RANDOM:
            feed[""] = RANDOM
            continue
        name, sep, file = spec.partition("=")
        if not sep or not name or not file:
            msg = f"--input {spec!r} is malformed; write NAME=FILE.npy, NAME=random or random"
            raise UsageError(msg)
        if file == RANDOM:
            feed[name] = RANDOM
            continue
        path = Path(file)
        if not path.is_file():
            msg = f"--input {name}: no such file {path}"
            raise InputFileError(msg)
        try:
            feed[name] = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as err:
            msg = f"--input {name}: {path} is not a .npy array ({err})"
            raise InputFileError(msg) from None
    return feed


def _complete_inputs(engine, given: dict) -> dict:
    """Every model input from `given`; random data only where asked for."""
    import numpy as np

    specs = engine.inputs()
    known = set().union(*(s.names for s in specs), (s.name for s in specs))
    unknown = [n for n in given if n and n not in known]
    if unknown:
        raise not_in_model("--input", unknown[0], "input", (s.name for s in specs))
    rng = np.random.default_rng(0)
    feed = {}
    for name, dtype, shape, names in specs:
        given_as = next((n for n in sorted(names | {name}) if n in given), "")
        value = given.get(given_as)
        if value is None:
            msg = (f"input {name!r} has no value: pass --input {name}=FILE.npy "
                   "(or --input random for seeded random data)")
            raise UsageError(msg)
        if not isinstance(value, str):
            feed[name] = value
            continue
        if any(d < 0 for d in shape):
            msg = f"input {name!r} has a dynamic shape {list(shape)}: pass --input {name}=FILE.npy"
            raise UsageError(msg)
        data = rng.standard_normal(shape) if dtype.kind == "f" else rng.integers(0, 10, shape)
        feed[name] = np.asarray(data).astype(dtype)
        sys.stderr.write(f"[ INFO ] input '{name}': random {dtype.name} {list(shape)}\n")
    return feed


def _check_output(path: Path | None) -> None:
    """Refuse an --output that cannot be written before any work is done."""
    if path is None:
        return
    folder = path.parent
    if not folder.is_dir():
        msg = f"--output {path}: no such folder {folder}"
        raise UsageError(msg)
    if not os.access(folder, os.W_OK):
        msg = f"--output {path}: cannot write into {folder}"
        raise UsageError(msg)


def _model(args: argparse.Namespace) -> Path:
    """The IR: positional (as benchmark_app and ovc take a model) or --model, exactly once."""
    if (args.model_file is None) == (args.model is None):
        msg = ("give the IR once: extgen run M.xml (or --model M.xml)" if args.model is None
               else "the IR is given twice (M.xml and --model); give it once")
        raise UsageError(msg)
    return args.model_file or args.model


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from converter.runtime.engines import open_engine

    args.model = _model(args)
    _check_output(args.output)
    given = _load_inputs(args.input)
    engine = open_engine(args.engine, args.model, args.device, args.extension, args.config,
                         profile=args.benchmark > 0)
    feed = _complete_inputs(engine, given)
    outputs = engine.run(feed)
    for name, value in outputs.items():
        stats = f"min {value.min():.6g} max {value.max():.6g}" if value.size else "empty"
        print(f"{name}: {value.dtype.name} {list(value.shape)} {stats}")
    if args.output:
        np.savez(args.output, **outputs)
        print(f"saved {len(outputs)} output(s) to {args.output}")
    if args.benchmark > 0:
        _benchmark(engine, feed, args.benchmark, args.engine)
    if args.compare:
        return _compare(args, feed, outputs)
    return 0


def _compare(args: argparse.Namespace, feed: dict, outputs: dict) -> int:
    """Run the other engine on the same feed; 1 when an output differs beyond --tolerance."""
    from converter.runtime.engines import open_engine

    other = "openvino" if args.engine == "shim" else "shim"
    theirs = open_engine(other, args.model, args.device, args.extension, args.config).run(feed)
    print(f"max abs difference {args.engine} vs {other} (tolerance {args.tolerance:g}):")
    differ = []
    for name, value in outputs.items():
        verdict = _difference(value, theirs.get(name), args.tolerance)
        print(f"  {name}: {verdict}")
        if not verdict.endswith("ok"):
            differ.append(name)
    if differ:
        print(f"[ ERROR ] {len(differ)} output(s) differ between {args.engine} and {other}: "
              f"{', '.join(differ)}", file=sys.stderr)
        return 1
    return 0


def _difference(ours, theirs, tolerance: float) -> str:
    """'<max abs diff> ok', or what differs: shape, NaN positions, or a diff beyond tolerance."""
    import numpy as np

    if theirs is None:
        return "missing from the other engine"
    if ours.shape != theirs.shape:
        return f"shape {list(ours.shape)} vs {list(theirs.shape)}"
    a, b = ours.astype(np.float64), np.asarray(theirs).astype(np.float64)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return "NaN in different places"
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if not a.size:
        return "0 ok"
    with np.errstate(invalid="ignore"):
        diff = float(np.where(a == b, 0.0, np.abs(a - b)).max())  # equal infinities agree
    scale = max(1.0, float(np.abs(b[np.isfinite(b)]).max(initial=0.0)))
    if not diff <= tolerance * scale:
        return f"{diff:.3g} beyond the tolerance"
    return f"{diff:.3g} ok"


def _benchmark(engine, feed: dict, runs: int, engine_name: str) -> None:
    """Latency over `runs` runs, then the time per op type (as benchmark_app -pc), slowest
    first, so a custom op's share is plain to see."""
    from converter.runtime.executor import OpTimes

    latencies = []
    for _ in range(runs):
        start = time.perf_counter()
        engine.run(feed)
        latencies.append((time.perf_counter() - start) * 1000)
    print(f"latency over {runs} runs: min {min(latencies):.2f} ms, "
          f"median {statistics.median(latencies):.2f} ms, max {max(latencies):.2f} ms")
    times = OpTimes()
    for _ in range(runs):
        engine.run(feed, times)
    total = sum(times.seconds.values()) or 1.0
    print(f"time per op type ({engine_name}, mean of {runs} runs):")
    for op, sec in sorted(times.seconds.items(), key=lambda kv: -kv[1]):
        print(f"  {op:<24} {sec * 1000 / runs:9.3f} ms  {100 * sec / total:5.1f}%  "
              f"{times.calls[op] // runs:4d} layers")
