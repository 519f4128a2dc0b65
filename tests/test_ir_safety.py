"""No run loses or mixes an IR pair: a kill at any point leaves no .xml beside a .bin other than
its own, runs into one name queue on its lock, and temporary files of killed runs are removed
by the next run that writes the name."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.child_env import child_env
from tests.conftest import make_model

ROOT = Path(__file__).resolve().parents[1]
ENV = child_env()
NAME = "m"


def _model(path: Path, size: int, fill: float) -> Path:
    """y = x + w, w = fill everywhere: the .bin holds size*4 bytes, each float `fill`."""
    model = make_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                       [("x", TensorProto.FLOAT, [size])], [("y", TensorProto.FLOAT, [size])],
                       {"w": np.full(size, fill, np.float32)})
    onnx.save(model, path)
    return path


def _argv(model: Path, out: Path) -> list[str]:
    """float32 weights, so that _pair reads back the exact fill value."""
    return ["convert", "--input_model", str(model), "-o", str(out), "--model_name", NAME,
            "--compress_to_fp16=False"]


def _convert(model: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "extgen", *_argv(model, out)], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _pair(out: Path) -> tuple[int, float] | None:
    """None when there is no .xml; else (the weight's size as the .xml says, its value in the
    .bin), after checking that the .bin is exactly as long as the .xml's constants need."""
    xml = out / f"{NAME}.xml"
    if not xml.exists():
        return None
    consts = [layer.find("data").attrib for layer in ET.parse(xml).iter("layer")
              if layer.get("type") == "Const"]
    weight = max(consts, key=lambda c: int(c["size"]))
    data = (out / f"{NAME}.bin").read_bytes()
    assert len(data) == max(int(c["offset"]) + int(c["size"]) for c in consts)
    offset = int(weight["offset"])
    return int(weight["shape"]), float(np.frombuffer(data[offset:offset + 4], np.float32)[0])


def _hidden(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name.startswith("."))


def test_kill_between_the_renames_leaves_no_stale_xml(tmp_path: Path) -> None:
    out = tmp_path / "ir"
    old, new = _model(tmp_path / "a.onnx", 6, 1.0), _model(tmp_path / "b.onnx", 8, 2.0)
    assert _convert(old, out).wait() == 0
    # kill -9 exactly when the .xml is about to be renamed into place (after the .bin's rename)
    script = (
        "import os, signal, sys\n"
        "real = os.replace\n"
        "def replace(src, dst):\n"
        f"    if str(dst).endswith('{NAME}.xml'):\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    real(src, dst)\n"
        "os.replace = replace\n"
        "from extgen.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    killed = subprocess.run([sys.executable, "-c", script, *_argv(new, out)], env=ENV,
                            capture_output=True, check=False)
    assert killed.returncode == -signal.SIGKILL
    assert _pair(out) is None  # was the old .xml with the new .bin: it loaded, wrong weights
    assert any(name.startswith(f".{NAME}.xml.") for name in _hidden(out))
    assert _convert(new, out).wait() == 0
    assert _pair(out) == (8, 2.0)
    assert _hidden(out) == []  # the killed run's temporary .xml is gone


def test_a_second_run_into_the_name_waits_for_the_lock(tmp_path: Path) -> None:
    out = tmp_path / "ir"
    out.mkdir()
    model = _model(tmp_path / "a.onnx", 6, 3.0)
    with open(out / f".{NAME}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = _convert(model, out)
        line = proc.stderr.readline()
        assert "waiting" in line and f".{NAME}.lock" in line
        time.sleep(0.5)
        assert proc.poll() is None and _pair(out) is None
        fcntl.flock(held, fcntl.LOCK_UN)
    assert proc.wait(timeout=60) == 0
    assert _pair(out) == (6, 3.0)
    assert _hidden(out) == []


def _wait_for_temp_bin(out: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if out.is_dir() and any(p.startswith(f".{NAME}.bin.") for p in os.listdir(out)):
            return
        time.sleep(0.001)


@pytest.mark.slow
def test_kill_at_any_point_never_mixes_the_pair(tmp_path: Path) -> None:
    out = tmp_path / "ir"
    models = {40_000_000: _model(tmp_path / "a.onnx", 40_000_000, 1.0),
              30_000_000: _model(tmp_path / "b.onnx", 30_000_000, 2.0)}
    fills = {40_000_000: 1.0, 30_000_000: 2.0}
    assert _convert(models[40_000_000], out).wait() == 0
    for i, delay in enumerate([0.0, 0.01, 0.03, 0.06, 0.1, 0.2, 0.4, 0.8]):
        proc = _convert(list(models.values())[(i + 1) % 2], out)
        _wait_for_temp_bin(out, proc)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        state = _pair(out)
        assert state is None or state[1] == fills[state[0]], (delay, state)
    assert _convert(models[30_000_000], out).wait() == 0
    assert _pair(out) == (30_000_000, 2.0)
    assert _hidden(out) == []


@pytest.mark.slow
def test_concurrent_runs_into_one_name_leave_one_models_pair(tmp_path: Path) -> None:
    import openvino as ov

    out = tmp_path / "ir"
    sizes = {3.0: 10_000_000, 4.0: 7_000_000}
    models = [_model(tmp_path / f"{fill}.onnx", size, fill) for fill, size in sizes.items()]
    for _ in range(4):
        procs = [_convert(model, out) for model in models]
        assert [p.wait(timeout=120) for p in procs] == [0, 0]
        size, fill = _pair(out)
        assert sizes[fill] == size
        compiled = ov.Core().compile_model(str(out / f"{NAME}.xml"), "CPU")
        y = compiled([np.zeros(size, np.float32)])[0]
        assert y.shape == (size,) and float(y[0]) == float(y[-1]) == fill
        assert _hidden(out) == []
