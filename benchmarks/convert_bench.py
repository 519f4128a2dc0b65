#!/usr/bin/env python3
"""Conversion speed and memory: `extgen convert` vs OpenVINO's `ovc` on the same models, same run.

Usage: convert_bench.py [MODEL ...]   (default: resnet50 squeezenet densenet121)
Both with their defaults (float16 weights, as MO 2023 and ovc write them). Prints, per model,
wall time, peak RSS and IR size (.bin MiB) of each tool, the ratios extgen/ovc, and extgen's peak
RSS over the model file's size. Targets: resnet50 wall <= 2x ovc, peak RSS <= 2x file size.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import EXTGEN, ZOO_DIR, materialize, measure  # noqa: E402


def main(names: list[str]) -> None:
    materialize(names)
    bindir = Path(sys.executable).parent
    print(f"{'model':14} {'MiB':>6} {'extgen s':>9} {'ovc s':>7} {'time x':>7} "
          f"{'extgen MiB':>10} {'ovc MiB':>8} {'rss x':>6} {'rss/file':>8} "
          f"{'extgen bin':>10} {'ovc bin':>8}")
    for name in names:
        model = ZOO_DIR / f"{name}.onnx"
        size = model.stat().st_size / 2**20
        with tempfile.TemporaryDirectory() as tmp:
            ours = measure([*EXTGEN, "convert", "--input_model", str(model),
                            "--output_dir", tmp])
            theirs = measure([str(bindir / "ovc"), str(model), "--output_model",
                              f"{tmp}/ovc/{name}.xml"])
            bins = [(Path(tmp) / sub / f"{name}.bin").stat().st_size / 2**20 for sub in ("", "ovc")]
            shutil.rmtree(tmp, ignore_errors=True)
        print(f"{name:14} {size:6.0f} {ours[0]:9.2f} {theirs[0]:7.2f} {ours[0] / theirs[0]:7.2f} "
              f"{ours[1]:10.0f} {theirs[1]:8.0f} {ours[1] / theirs[1]:6.2f} {ours[1] / size:8.2f} "
              f"{bins[0]:10.1f} {bins[1]:8.1f}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["resnet50", "squeezenet", "densenet121"])
