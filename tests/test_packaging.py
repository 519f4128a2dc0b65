"""A wheel does everything a checkout does: built from the repository, installed into a new
virtual environment outside it, and used from an unrelated folder for the cosh example's
generate, convert and GPU run, and for doctor."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
# what a user's shell would have: no path into the checkout, no active venv
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def _run(cmd: list, cwd: Path, env: dict | None = None) -> str:
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                          env=env or CLEAN_ENV, check=False)
    assert done.returncode == 0, f"{cmd}: {done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The bin/ folder of a new venv holding only the wheel and its declared dependencies."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"  # the files a wheel is built from; the build leaves the checkout alone
    for name in ("extgen", "converter", "templates"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", src, "-w", base / "dist"], base)
    (wheel,) = (base / "dist").glob("extgen-*.whl")
    _run([sys.executable, "-m", "venv", base / "venv"], base)
    _run([base / "venv/bin/python", "-m", "pip", "install", "-q", wheel], base)
    return base / "venv" / "bin"


def test_the_wheel_runs_the_cosh_example_from_another_folder(installed: Path, tmp_path) -> None:
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {**CLEAN_ENV, "EXTGEN_CACHE_DIR": str(tmp_path / "cache")}
    where = _run([installed / "python", "-c", "import extgen, converter; "
                  "print(extgen.__file__, converter.__file__)"], work, env)
    assert str(ROOT) not in where and "site-packages" in where
    assert _run([installed / "python", "-m", "extgen", "--version"], work, env).startswith("extgen")
    # the shim's native kernels build from the source the wheel ships
    _run([installed / "python", "-c", "from converter.ops.native import kernels; "
          "assert kernels() is not None"], work, env)

    _run([sys.executable, ROOT / "examples/cosh/make_model.py", work], work)  # needs onnxruntime
    config = work / "cosh.extgen.json"
    config.write_text((ROOT / "examples/cosh/cosh.extgen.json").read_text())
    extgen = installed / "extgen"
    _run([extgen, "new", "--config", config, "--output_dir", "ext"], work, env)
    assert (work / "ext/user_ie_extensions/gpu/cosh_kernel.cl").is_file()
    _run([extgen, "convert", "--input_model", "cosh_net.onnx", "--extensions",
          "ext/user_mo_extensions", "--output_dir", "ir"], work, env)
    _run([extgen, "run", "--model", "ir/cosh_net.xml", "--input", "image=image.npy",
          "--device", "GPU", "--config", "ext/user_ie_extensions/gpu/cosh_kernel.xml",
          "--output", "probs.npz"], work, env)
    (probs,) = np.load(work / "probs.npz").values()
    np.testing.assert_allclose(probs, np.load(work / "reference.npy"), atol=1e-5)
    # the wheel alone has no OpenVINO engine: doctor says what it would add, and exits 0
    report = _run([extgen, "doctor"], work, env)
    assert re.search(r"^optional +openvino ", report, re.M), report


def test_missing_templates_stop_before_any_question(monkeypatch, tmp_path, capsys) -> None:
    from extgen.cli import main
    from extgen.generator import generate

    monkeypatch.setattr(generate, "TEMPLATES", tmp_path / "gone")
    monkeypatch.setattr("sys.stdin", None)  # a question asked would fail differently
    assert main(["new", "--output_dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "templates are missing" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
