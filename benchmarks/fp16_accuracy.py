#!/usr/bin/env python3
"""Default (fp16-weight) accuracy against ovc's default, on the light zoo and the Keras/TF
corpus: each model is converted by extgen and by ovc with their defaults (weights compressed to
fp16), both IRs run in OpenVINO on CPU at f32 inference precision, and each output is compared
with the framework's own (onnxruntime's for the zoo, TF's for the corpus) as the max abs
difference over the largest abs output. The last column is extgen's error over ovc's; the goal
is at most 1.1 on every model.

Usage: fp16_accuracy.py [--zoo-only | --tf-only] [MODEL ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from light_zoo import ZOO  # noqa: E402
from light_zoo import materialize as materialize_zoo  # noqa: E402

from tests.tf_corpus import MODELS as TF_MODELS  # noqa: E402
from tests.tf_corpus import materialize as materialize_tf  # noqa: E402

GOAL = 1.1


def _relative(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got.astype(np.float64) - want).max() / np.abs(want).max())


def _run(xml: Path, x: np.ndarray) -> np.ndarray:
    import openvino as ov

    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled(x)[0]


def _f16_consts(xml: Path) -> int:
    return xml.read_text().count('element_type="f16"')


def errors(model: Path, x: np.ndarray, want: np.ndarray) -> tuple[float, int, str]:
    """extgen's error and f16 Consts, and ovc's line (its error and f16 Consts, or its
    failure), both with their defaults."""
    import openvino as ov

    from converter.options import ConvertOptions
    from converter.pipeline import convert

    with tempfile.TemporaryDirectory() as out:
        ours = convert(ConvertOptions(model, output_dir=Path(out), input_shape=[list(x.shape)],
                                      compress_to_fp16=True)).xml
        theirs = Path(out) / "ovc.xml"
        try:
            ov.save_model(ov.convert_model(str(model), input=[list(x.shape)]), theirs)
        except Exception as err:  # noqa: BLE001 - the peer's failure is a result
            peer = f"ovc FAILS ({type(err).__name__})"
        else:
            peer = f"{_relative(_run(theirs, x), want):8.1e} ({_f16_consts(theirs):4} f16)"
        return _relative(_run(ours, x), want), _f16_consts(ours), peer


def row(name: str, model: Path, x: np.ndarray, want: np.ndarray) -> bool:
    """Print one model's line in a child process (a crash is one line); True when at goal."""
    done = subprocess.run([sys.executable, __file__, "--one", str(model), name],
                          input=_pack(x, want), capture_output=True, check=False)
    lines = done.stdout.decode().strip().splitlines()
    print(lines[-1] if lines else f"{name:18} FAIL {done.stderr.decode().strip()[-200:]}",
          flush=True)
    return bool(lines) and lines[-1].endswith("ok")


def _pack(x: np.ndarray, want: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.savez(buf, x=x, want=want)
    return buf.getvalue()


def _one(model: Path, name: str) -> None:
    import io

    arrays = np.load(io.BytesIO(sys.stdin.buffer.read()))
    ours, n_ours, peer = errors(model, arrays["x"], arrays["want"])
    line = f"{name:18} extgen {ours:8.1e} ({n_ours:4} f16)   ovc "
    if peer.startswith("ovc FAILS"):
        print(f"{line}{peer[4:]}   ok")  # nothing of ovc's to be worse than
        return
    theirs = float(peer.split()[0])
    ratio = ours / theirs if theirs else float("inf") if ours else 1.0
    mark = "ok" if ratio <= GOAL or ours < 1e-6 else "OVER"
    print(f"{line}{peer}   ratio {ratio:5.2f}  {mark}")


def main() -> int:
    if sys.argv[1:2] == ["--one"]:
        _one(Path(sys.argv[2]), sys.argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*")
    parser.add_argument("--zoo-only", action="store_true")
    parser.add_argument("--tf-only", action="store_true")
    args = parser.parse_args()
    wanted = set(args.models)
    at_goal = total = 0
    if not args.tf_only:
        for name in (n for n in ZOO if not wanted or n in wanted):
            folder = materialize_zoo([name])
            x = np.load(folder / f"{name}.input.npy")
            want = np.load(folder / f"{name}.expected.npy")
            model = folder / f"{name}.onnx"
            at_goal, total = at_goal + row(name, model, x, want), total + 1
    if not args.zoo_only:
        for name in (n for n in TF_MODELS if not wanted or n in wanted):
            folder = materialize_tf(name)
            x, want = np.load(folder / "input.npy"), np.load(folder / "expected.npy")
            at_goal, total = at_goal + row(name, folder / "frozen.pb", x, want), total + 1
    print(f"at most {GOAL}x ovc's error: {at_goal}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
