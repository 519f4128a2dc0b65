#!/usr/bin/env python3
"""Ask the legacy Model Optimizer 2023.3 again and rewrite its recorded answers in
tests/data/mo_oracle/ (tests/mo_oracle.py reads them; no test runs MO itself).

MO 2023.3 (openvino-dev) installs only on Python <= 3.11: this script finds a Python 3.11
(python3.11 on PATH, or pyenv's), makes a venv with MO in ~/.cache/extgen/mo-2023.3-venv once,
then runs the oracle tests with EXTGEN_MO_PYTHON pointing at it, so each question is put to MO.
Run it with the checkout's test environment:

    .venv/bin/python scripts/record_mo_fixtures.py
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "data" / "mo_oracle"
VENV = Path.home() / ".cache" / "extgen" / "mo-2023.3-venv"
# MO 2023.3 reads TF and MXNet models with those frameworks themselves
MO_PACKAGES = ["openvino-dev==2023.3.0", "numpy<1.24", "protobuf==3.20.3", "onnx",
               "tensorflow-cpu>=2.13,<2.16", "mxnet==1.9.1"]
ORACLE_TESTS = ["tests/front/test_kaldi_mo.py", "tests/front/test_kaldi_mo_layout.py",
                "tests/front/test_kaldi_mo_flags.py", "tests/front/test_caffe_mo.py",
                "tests/test_mo_parity.py", "tests/legacy/test_mo_op_classes.py",
                "tests/legacy/test_mo_phase_graphs.py", "tests/legacy/test_mo_pass_modules.py"]


def python311() -> str:
    """A Python 3.11 interpreter, or exit naming what to install."""
    found = [shutil.which("python3.11"),
             *sorted(glob.glob(str(Path.home() / ".pyenv/versions/3.11*/bin/python")))]
    for python in filter(None, found):
        done = subprocess.run([python, "-c", "import sys, venv; print(sys.version_info[:2])"],
                              capture_output=True, text=True)
        if done.returncode == 0 and done.stdout.strip() == "(3, 11)":
            return python
    sys.exit("record_mo_fixtures: MO 2023.3 needs Python 3.11 with venv, and none was found "
             "(install python3.11, or `pyenv install 3.11`)")


def mo_python() -> Path:
    python = VENV / "bin" / "python"
    ready = VENV / "ready"  # holds the packages it was made with
    if not ready.exists() or ready.read_text().split() != MO_PACKAGES:
        print(f"installing MO 2023.3 into {VENV} (once)", flush=True)
        subprocess.run([python311(), "-m", "venv", "--clear", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *MO_PACKAGES], check=True)
        ready.write_text("\n".join(MO_PACKAGES) + "\n")
    return python


def main() -> int:
    python = mo_python()
    shutil.rmtree(FIXTURES, ignore_errors=True)  # answers no test asks for any more go too
    env = {**os.environ, "EXTGEN_MO_PYTHON": str(python)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p",
                           "no:cacheprovider", *ORACLE_TESTS], cwd=ROOT, env=env)
    count = sum(1 for _ in FIXTURES.rglob("*") if _.is_file())
    print(f"record_mo_fixtures: {count} files in {FIXTURES.relative_to(ROOT)}")
    if done.returncode:
        print("record_mo_fixtures: some oracle tests failed (above); the answers they asked "
              "for are recorded all the same", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
