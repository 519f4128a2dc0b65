"""The generated CMakeLists.txt finds OpenVINO by itself: without -DOpenVINO_DIR it asks the
active Python (a virtual environment's, or the first on PATH) for the openvino package's
get_cmake_path() and says which OpenVINO_DIR it used. The configure step alone is checked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from extgen.cli import main
from tests.generator._cpu_build import tools_missing

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


def _configure(tmp_path: Path, env: dict[str, str]) -> str:
    if tools_missing():
        pytest.skip(tools_missing())
    assert main(["new", "--config", str(ROOT / "examples/cosh/cosh.extgen.json"),
                 "--output_dir", str(tmp_path / "ext")]) == 0
    run = subprocess.run(["cmake", "-S", "ext/user_ie_extensions/cpu", "-B", "build"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def _env(**changes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OpenVINO_DIR", "VIRTUAL_ENV")}
    rest = [p for p in env.get("PATH", "").split(os.pathsep) if p and Path(p) != VENV_BIN]
    env["PATH"] = os.pathsep.join(rest)
    return {**env, **changes}


@pytest.mark.parametrize("how", ["path", "virtual_env"])
def test_cmake_finds_openvino_through_the_active_python(tmp_path: Path, capsys, how: str) -> None:
    from openvino.utils import get_cmake_path

    env = (_env(PATH=f"{VENV_BIN}{os.pathsep}{_env()['PATH']}") if how == "path"
           else _env(VIRTUAL_ENV=sys.prefix))
    out = _configure(tmp_path, env)
    found = [line for line in out.splitlines() if line.startswith("-- OpenVINO")]
    assert len(found) == 1 and found[0].startswith(f"-- OpenVINO: {get_cmake_path()} (from "), out
    python = Path(found[0].split(" (from ")[-1].removesuffix(")"))
    assert python.parent == VENV_BIN  # the environment's Python, not another one on PATH
