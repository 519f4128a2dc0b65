#!/usr/bin/env python3
"""Accuracy on the nine light-zoo models: convert with extgen, run the IR in an engine, compare
with onnxruntime's reference output (tolerance 1e-4 relative to the output's max magnitude).
Where the model ends in Softmax, the logits feeding it are compared too (a saturated softmax
hides differences: resnet50's reference output is one-hot).

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


def _rel(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def _logits_error(model, x: np.ndarray, engine: str) -> float | None:
    """The relative error of the tensor feeding the last Softmax, or None without one."""
    import onnx
    import onnxruntime as ort

    from converter.onnx_backend import ExtgenBackend

    softmax = [n for n in model.graph.node if n.op_type == "Softmax"]
    if not softmax:
        return None
    name = softmax[-1].input[0]
    cut = onnx.ModelProto()
    cut.CopyFrom(model)
    del cut.graph.output[:]
    cut.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    session = ort.InferenceSession(cut.SerializeToString())
    want = session.run(None, {model.graph.input[0].name: x})[0]
    got = ExtgenBackend.prepare(cut, engine=engine).run([x])[0]
    return _rel(got, want)


def check(name: str, engine: str) -> tuple[float, float | None, float]:
    """(relative max error of the output, of the logits, seconds to convert + run)."""
    import onnx

    from converter.onnx_backend import ExtgenBackend

    x = np.load(ZOO_DIR / f"{name}.input.npy")
    expected = np.load(ZOO_DIR / f"{name}.expected.npy")
    start = time.perf_counter()
    model = onnx.load(ZOO_DIR / f"{name}.onnx")
    (y,) = ExtgenBackend.prepare(model, engine=engine).run([x])[:1]
    seconds = time.perf_counter() - start
    return _rel(y, expected), _logits_error(model, x, engine), seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--engine", default="openvino")
    ap.add_argument("models", nargs="*", default=list(ZOO))
    args = ap.parse_args()
    materialize(args.models)
    failed = 0
    for name in args.models:
        try:
            err, logits, secs = check(name, args.engine)
            ok = err <= 1e-4 and (logits is None or logits <= 1e-4)
            shown = "-" if logits is None else f"{logits:.2e}"
            print(f"{name:14} rel_err={err:.2e} logits_rel_err={shown} {'PASS' if ok else 'FAIL'} "
                  f"({secs:.1f}s)")
        except Exception as exc:  # report and go on to the next model
            ok = False
            print(f"{name:14} ERROR {type(exc).__name__}: {str(exc)[:200]}")
        failed += not ok
    print(f"zoo: {len(args.models) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
