#!/usr/bin/env python3
"""The bundled end-to-end example (the README's main job): a model with a custom op goes
through check -> new -> build -> convert -> run on every engine and device, and a table shows
each result against the reference. Everything is written under examples/out/cosh/."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "out" / "cosh"
BIN = Path(sys.executable).parent


def sh(*cmd: str, quiet: bool = False, ok: tuple[int, ...] = (0,)) -> str:
    """Run one command, echoing it; stop the example with its output on failure (an exit
    status not in ok)."""
    shown = " ".join(str(c).replace(str(OUT) + "/", "") for c in cmd)
    print(f"\n$ {shown}", flush=True)
    if shutil.which(str(cmd[0])) is None:
        raise SystemExit(f"example step failed: {cmd[0]} is not installed "
                         "(`extgen doctor` prints the command that installs it)")
    done = subprocess.run([str(c) for c in cmd], cwd=OUT, capture_output=True, text=True)
    if done.returncode not in ok:
        print(done.stdout + done.stderr)
        raise SystemExit(f"example step failed: {shown}")
    if not quiet:
        print(done.stdout.rstrip())
    return done.stdout


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    extgen = BIN / "extgen"
    sh(sys.executable, HERE / "make_model.py", OUT)
    # check exits 1: the models hold an op that needs an extension
    sh(extgen, "check", "cosh_net.onnx", "--output_dir", "check", "--force", ok=(1,))
    sh(extgen, "check", "cosh_net.pb", "--output_dir", "check_tf", "--force", ok=(1,))
    shutil.copy(HERE / "cosh.extgen.json", OUT / "cosh.extgen.json")
    sh(extgen, "new", "--config", "cosh.extgen.json", "--output_dir", "ext", "--force", quiet=True)
    from openvino.utils import get_cmake_path

    sh("cmake", "-S", "ext/user_ie_extensions/cpu", "-B", "build",
       f"-DOpenVINO_DIR={get_cmake_path()}", quiet=True)
    sh("cmake", "--build", "build", "-j2", quiet=True)
    # the TF model's input is NHWC, and so would be its IR's: --layout gives it the ONNX
    # model's NCHW, so both IRs take image.npy
    for model, ir, layout in (("cosh_net.onnx", "ir", []),
                              ("cosh_net.pb", "ir_tf", ["--layout", "nhwc->nchw"])):
        sh(extgen, "convert", "--input_model", model, "--extensions", "ext/user_mo_extensions",
           "--output_dir", ir, *layout)
    gpu = ["--config", "ext/user_ie_extensions/gpu/cosh_kernel.xml"]
    runs = [
        ("ONNX", "ir", "shim", "CPU", ["--extension", "build/libuser_cpu_extension_abi.so"]),
        ("ONNX", "ir", "shim", "GPU", gpu),
        ("ONNX", "ir", "shim", "VPU", ["--config", "ext/user_ie_extensions/vpu/cosh_kernel.xml"]),
        ("ONNX", "ir", "shim", "HETERO:GPU,CPU", gpu),
        ("ONNX", "ir", "openvino", "CPU", ["--extension", "build/libuser_cpu_extension.so"]),
        ("TF", "ir_tf", "shim", "GPU", gpu),
        ("TF", "ir_tf", "openvino", "CPU", ["--extension", "build/libuser_cpu_extension.so"]),
    ]
    reference = np.load(OUT / "reference.npy")
    rows = []
    for framework, ir, engine, device, extra in runs:
        out = f"probs_{ir}_{engine}_{device.replace(':', '_').replace(',', '_')}.npz"
        sh(extgen, "run", "--model", f"{ir}/cosh_net.xml", "--input", "image=image.npy",
           "--engine", engine, "--device", device, "--output", out, *extra, quiet=True)
        diff = float(np.abs(next(iter(np.load(OUT / out).values())) - reference).max())
        rows.append((framework, engine, device, diff))
    print("\nmodel  engine     device           max |diff| vs reference  result")
    for framework, engine, device, diff in rows:
        verdict = "OK" if diff < 1e-5 else "MISMATCH"
        print(f"{framework:6} {engine:10} {device:16} {diff:24.2e}  {verdict}")
    bad = [r for r in rows if r[3] >= 1e-5]
    print(f"\n{len(rows) - len(bad)} of {len(rows)} engine/device runs agree with the reference")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
