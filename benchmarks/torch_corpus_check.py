#!/usr/bin/env python3
"""The PyTorch corpus (tests/torch_corpus.py) through extgen: for each model and exporter,
convert with `extgen convert`, run the IR in the shim and in OpenVINO, and print a table of
the largest difference from onnxruntime over each output's magnitude (detections compared as
sets; the quantized exports of tests/quantized_corpus.py too), or extgen's error line.

With --ovc, OpenVINO's own converter (a peer to compare with, never part of extgen) converts
the same file, and its difference from onnxruntime is printed beside extgen's.

Usage: torch_corpus_check.py [--ovc] [--exporter ts|dynamo|ts+qdq|ts+dynamic] [MODEL ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.quantized_corpus import QUANTIZED, quantized  # noqa: E402
from tests.torch_corpus import ENTRIES, compare, differences, load, materialize  # noqa: E402


def _convert(folder: Path, out: Path) -> Path:
    from extgen.cli import main as extgen

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = extgen(["convert", "--input_model", str(folder / "model.onnx"),
                       "--output_dir", str(out), "--compress_to_fp16=False"])
    if code:
        raise RuntimeError(err.getvalue().strip().splitlines()[-1][:110])
    return out / "model.xml"


def _ovc(folder: Path) -> str:
    """ovc's largest difference from onnxruntime (as for extgen's IR), or its error."""
    import openvino as ov

    want = load(folder, "expected")
    try:
        model = ov.convert_model(str(folder / "model.onnx"))
        compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        result = compiled(load(folder, "inputs"))
    except Exception as err:  # noqa: BLE001 - the peer's failure is a result
        return f"FAIL {type(err).__name__}"
    # an output port carries the names of the tensors compilation merged into it
    got = {next(n for n in port.get_names() if n in want): value
           for port, value in result.items()}
    return f"{max(compare(got, want).values()):.1e}"


def _row(model: str, exporter: str, ovc: bool) -> tuple[str, bool]:
    head = f"{model:20} {exporter:10}"
    try:
        if "+" in exporter:  # ts+qdq, ts+dynamic: a quantized export
            folder = quantized(model, exporter.split("+")[1])
        else:
            folder = materialize(model, exporter)
    except RuntimeError as err:
        return f"{head} export failed: {str(err).splitlines()[-1][:80]}", False
    peer = f" {_ovc(folder):>9}" if ovc else ""
    with tempfile.TemporaryDirectory() as out:
        try:
            xml = _convert(folder, Path(out))
        except Exception as err:  # noqa: BLE001 - the table lists every failure
            return f"{head} no  {'':9} {'':9}{peer}  {err}", False
        diffs = []
        for engine in ("shim", "openvino"):
            try:
                diffs.append(f"{max(differences(folder, xml, engine).values()):9.1e}")
            except Exception as err:  # noqa: BLE001 - a run failure is a result too
                diffs.append(f"{'FAIL':>9}")
                peer += f"  {engine}: {type(err).__name__}: {str(err)[:90]}"
    return f"{head} yes  {' '.join(diffs)}{peer}", True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*")
    parser.add_argument("--exporter", choices=("ts", "dynamo", "ts+qdq", "ts+dynamic"))
    parser.add_argument("--ovc", action="store_true", help="convert with ovc too, to compare")
    args = parser.parse_args()
    everything = [*ENTRIES, *((m, f"ts+{kind}") for m, kind in QUANTIZED)]
    entries = [(m, e) for m, e in everything if (not args.models or m in args.models)
               and (not args.exporter or e == args.exporter)]
    print(f"{'model':20} {'exporter':10} conv {'shim':>9} {'openvino':>9}"
          + (f" {'ovc':>9}" if args.ovc else ""))
    done = 0
    for model, exporter in entries:
        line, converted = _row(model, exporter, args.ovc)
        done += converted
        print(line, flush=True)
    print(f"converted: {done}/{len(entries)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
