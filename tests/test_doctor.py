"""`extgen doctor`: a missing optional part (OpenVINO, Oclgrind, the native kernels) is one
'optional' line saying what it would add and how to get it, and exit status 0; a missing
required part, or any part named on the command line, is exit status 1; a package that does not
load on this Python is one line, never a traceback."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from extgen.cli import main
from extgen.commands import doctor
from tests.child_env import ROOT, child_env


@pytest.fixture
def wheel_install(monkeypatch) -> None:
    """A plain `pip install extgen` on a machine with the system tools: no openvino package
    (the optional engine), no Oclgrind; the slow checks answered at once."""
    for name in ("c++", "cmake", "native", "opencl"):
        monkeypatch.setitem(doctor._CHECKS, name, lambda name=name: (True, f"{name} found"))
    real_version = importlib.metadata.version

    def version(dist: str) -> str:
        if dist == "openvino":
            raise importlib.metadata.PackageNotFoundError(dist)
        return real_version(dist)

    monkeypatch.setattr(importlib.metadata, "version", version)
    real_which = doctor.shutil.which
    monkeypatch.setattr(doctor.shutil, "which",
                        lambda name: None if name == "oclgrind" else real_which(name))


def _lines(capsys) -> dict[str, str]:
    return {line.split()[1]: line for line in capsys.readouterr().out.splitlines()}


def test_missing_optional_parts_are_not_a_failure(wheel_install, capsys) -> None:
    assert main(["doctor"]) == 0
    lines = _lines(capsys)
    assert list(lines) == list(doctor.PARTS)
    assert all(lines[name].startswith("ok ") for name in ("c++", "cmake", "native", "opencl"))
    vino, grind = lines["openvino"], lines["oclgrind"]
    assert vino.startswith("optional openvino ") and grind.startswith("optional oclgrind ")
    assert "pip install openvino" in vino and "it would add the OpenVINO runtime" in vino
    assert "oclgrind not found; install it:" in grind
    assert "it would add the kernel debugger" in grind


def test_named_parts_are_required(wheel_install, capsys) -> None:
    assert main(["doctor", "openvino"]) == 1
    assert capsys.readouterr().out.startswith("missing  openvino  the openvino package is not")
    assert main(["doctor", "c++", "cmake", "opencl"]) == 0  # what scripts/setup.sh asks


def test_a_missing_required_tool_fails(wheel_install, monkeypatch, capsys) -> None:
    monkeypatch.setattr(doctor.shutil, "which", lambda name: None)
    monkeypatch.setitem(doctor._CHECKS, "cmake", doctor._cmake)
    assert main(["doctor"]) == 1
    line = _lines(capsys)["cmake"]
    assert line.startswith("missing  cmake     cmake not found; install it:")
    assert "needed for building the CPU target" in line


def test_a_package_that_does_not_load_is_one_line(tmp_path: Path) -> None:
    """openvino and pyopencl installed, but their compiled parts do not load on this Python
    (what a wheel built for another Python, or a missing shared library, looks like)."""
    fake = tmp_path / "site"
    for name, error in (("openvino", "OSError('libopenvino.so.2600: cannot open shared "
                                     "object file')"),
                        ("pyopencl", "ImportError('_cl.cpython-399.so: undefined symbol')")):
        (fake / name).mkdir(parents=True)
        (fake / name / "__init__.py").write_text(f"raise {error}\n")
    env = child_env()
    env["PYTHONPATH"] = f"{fake}:{env['PYTHONPATH']}"
    done = subprocess.run([sys.executable, "-m", "extgen", "doctor", "openvino", "opencl"],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 1 and done.stderr == "", done.stderr
    vino, cl = done.stdout.splitlines()
    python = f"Python {sys.version_info.major}.{sys.version_info.minor}"
    assert vino.startswith("missing  openvino  openvino ") and "libopenvino.so.2600" in vino
    assert cl.startswith("missing  opencl    pyopencl ") and "undefined symbol" in cl
    for line in (vino, cl):
        assert f"is installed but does not load on {python}" in line
        assert "pip install --force-reinstall" in line
