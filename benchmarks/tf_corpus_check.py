#!/usr/bin/env python3
"""The Keras/TF corpus (tests/tf_corpus.py) through extgen: for each model and form (frozen .pb,
.pbtxt, SavedModel, .keras), convert with a fixed input shape, run the IR in the shim and in
OpenVINO, and print the difference from TF's own output relative to its magnitude (max abs
difference over max abs output), or extgen's error line.

With --ovc, OpenVINO's own converter (a peer to compare with, never part of extgen) converts
the same file, and its seconds or error are printed beside extgen's.

The corpus keeps no .pbtxt of its biggest graphs (2.8 times the .pb: up to 380 MB); this
script writes those with TensorFlow (tf.io.write_graph, in a child) into a temporary folder.

Usage: tf_corpus_check.py [--forms pb,pbtxt,saved_model,keras] [--no-openvino] [--ovc] [MODEL ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.tf_corpus import MODELS, materialize, write_pbtxt  # noqa: E402

FORMS = {"pb": "frozen.pb", "pbtxt": "frozen.pbtxt", "saved_model": "saved_model",
         "keras": "model.keras"}


def run_form(model: Path, folder: Path, engines: list[str]) -> tuple[list[float], float]:
    """Relative difference from TF per engine, and the conversion seconds; raises on a
    failure."""
    from converter.options import ConvertOptions
    from converter.pipeline import convert
    from converter.runtime.engines import open_engine

    x, want = np.load(folder / "input.npy"), np.load(folder / "expected.npy")
    with tempfile.TemporaryDirectory() as out:
        opts = ConvertOptions(model, output_dir=Path(out),
                              input_shape=[list(x.shape)])
        start = time.perf_counter()
        result = convert(opts)
        seconds = time.perf_counter() - start
        diffs = []
        for engine in engines:
            runner = open_engine(engine, result.xml, "CPU")
            spec = runner.inputs()[0]
            got = next(iter(runner.run({spec.name: x}).values()))  # TF's layout, as ovc's
            if got.shape != want.shape:
                msg = f"{engine}: output shape {got.shape}, TF's {want.shape}"
                raise AssertionError(msg)
            diffs.append(_relative(got, want))
    return diffs, seconds


def run_ovc(model: Path, folder: Path) -> str:
    """ovc's conversion time and relative difference from TF, or its error."""
    import openvino as ov

    x, want = np.load(folder / "input.npy"), np.load(folder / "expected.npy")
    start = time.perf_counter()
    try:
        ir = ov.convert_model(str(model), input=[list(x.shape)])
    except Exception as err:  # noqa: BLE001 - the peer's failure is a result
        return f"ovc FAIL {type(err).__name__}: {_first_line(err)}"
    seconds = time.perf_counter() - start
    got = ov.Core().compile_model(ir, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(x)[0]
    return f"ovc {seconds:6.2f} s  rel={_relative(got, want):.1e}"


def peer(model: Path, folder: Path) -> str:
    """run_ovc in a child process: after ovc fails on a SavedModel, numpy's OpenBLAS hangs in
    the same process (seen with the SSD's CombinedNonMaxSuppression)."""
    done = subprocess.run([sys.executable, __file__, "--peer", str(model), str(folder)],
                          capture_output=True, text=True, check=False, timeout=900)
    lines = done.stdout.strip().splitlines()
    return lines[-1] if lines else f"ovc FAIL exit {done.returncode}"


def _relative(got: np.ndarray, want: np.ndarray) -> float:
    """The max abs difference over TF's max abs output (the tests' 1e-4 bound)."""
    return float(np.abs(got - want).max() / np.abs(want).max())


def _first_line(err: Exception) -> str:
    """The line of an error that says what failed (ovc's first lines are a banner)."""
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
    said = [ln for ln in lines if "No conversion rule" in ln or "rror" in ln] or lines or [""]
    return said[-1][:110]


def check(name: str, form: str, engines: list[str], ovc: bool, scratch: Path) -> bool:
    """Print one model's line for one form; True when extgen converted it."""
    folder = materialize(name)
    if form == "pbtxt":
        model = folder / FORMS[form]
        model = model if model.exists() else write_pbtxt(folder, scratch)
    elif not (folder / FORMS[form]).exists():
        print(f"{name:16} {form:12} (not written)")
        return False
    else:
        model = folder / FORMS[form]
    shown_peer = f"  | {peer(model, folder)}" if ovc else ""
    try:
        diffs, seconds = run_form(model, folder, engines)
    except Exception as err:  # noqa: BLE001 - the report lists every failure
        print(f"{name:16} {form:12} FAIL {type(err).__name__}: {str(err)[:120]}{shown_peer}")
        return False
    shown = "  ".join(f"{e}={d:.1e}" for e, d in zip(engines, diffs, strict=True))
    print(f"{name:16} {form:12} ok {seconds:6.2f} s  {shown}{shown_peer}", flush=True)
    return True


def main() -> int:
    if sys.argv[1:2] == ["--peer"]:  # the child of peer()
        print(run_ovc(Path(sys.argv[2]), Path(sys.argv[3])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(MODELS))
    parser.add_argument("--forms", default=",".join(FORMS))
    parser.add_argument("--no-openvino", action="store_true")
    parser.add_argument("--ovc", action="store_true", help="convert with ovc too, to compare")
    args = parser.parse_args()
    engines = ["shim"] if args.no_openvino else ["shim", "openvino"]
    ok = {form: 0 for form in args.forms.split(",")}
    for name in args.models:
        for form in ok:
            with tempfile.TemporaryDirectory() as scratch:
                ok[form] += check(name, form, engines, args.ovc, Path(scratch))
    print("converted:", ", ".join(f"{form} {n}/{len(args.models)}" for form, n in ok.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
