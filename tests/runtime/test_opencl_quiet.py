"""`extgen run` on the GPU is quiet: the OpenCL compiler's chatter (a warning in the kernel,
PoCL's "1 warning generated." written straight to stderr, pyopencl's CompilerWarning) shows with
--log_level DEBUG only, and a broken kernel is one error line naming its .cl file and the first
error. The CLI runs in a child process, so what a C library prints to fd 2 is seen too."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.child_env import child_env
from tests.runtime.test_opencl_gpu import KERNELS, ROOT, TINY_IR

WARNING = "extgen-quiet-test"


@pytest.fixture
def kernel_dir(tmp_path: Path) -> Path:
    """The tiny IR, and leaky_relu.xml whose kernel makes the compiler warn."""
    (tmp_path / "model.xml").write_text(TINY_IR)
    (tmp_path / "model.bin").write_bytes(b"")
    np.save(tmp_path / "x.npy", np.linspace(-1, 1, 48, dtype=np.float32).reshape(1, 3, 4, 4))
    shutil.copy(KERNELS / "leaky_relu.xml", tmp_path)
    source = (KERNELS / "leaky_relu.cl").read_text()
    (tmp_path / "leaky_relu.cl").write_text(f"#warning {WARNING}\n{source}")
    return tmp_path


def _run(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    # POCL_KERNEL_CACHE=0: PoCL compiles (and talks) every time instead of reading its own cache
    env = child_env(EXTGEN_CACHE_DIR=str(folder / "cache"), POCL_KERNEL_CACHE="0")
    cmd = [sys.executable, "-m", "extgen", "run", "--model", str(folder / "model.xml"),
           "--input", f"x={folder / 'x.npy'}", "--device", "GPU",
           "--config", str(folder / "leaky_relu.xml"), *extra]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)


def test_a_warning_kernel_runs_quietly(kernel_dir: Path) -> None:
    first = _run(kernel_dir)  # built from source
    assert first.returncode == 0, first.stderr
    assert first.stderr == "" and "y: float32 [1, 3, 4, 4]" in first.stdout
    again = _run(kernel_dir)  # the binary from extgen's disk cache
    assert again.returncode == 0 and again.stderr == "", again.stderr


def test_debug_logs_the_compiler_output(kernel_dir: Path) -> None:
    done = _run(kernel_dir, "--log_level", "DEBUG")
    assert done.returncode == 0, done.stderr
    assert "OpenCL build log:" in done.stderr, done.stderr[-3000:]
    log = done.stderr.split("OpenCL build log:", 1)[1]
    assert WARNING in log and "leaky_relu.cl:1" in log  # the log, at the user's line
    assert "CompilerWarning" not in done.stderr and "lambda:" not in done.stderr


def test_a_broken_kernel_is_one_error_line(kernel_dir: Path) -> None:
    source = kernel_dir / "leaky_relu.cl"
    source.write_text(source.read_text().replace("value * neg_slope", "value * no_such_slope"))
    done = _run(kernel_dir)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("[ ERROR ] ") and "leaky_relu.cl:16" in line
    assert "no_such_slope" in line and "generated" not in line
    debug = _run(kernel_dir, "--log_level", "DEBUG")  # the whole build log, warnings too
    assert debug.returncode == 2 and "OpenCL build log:" in debug.stderr
    assert WARNING in debug.stderr.split("OpenCL build log:", 1)[1]


def test_extgen_test_keeps_numpy_warnings_for_debug(tmp_path: Path) -> None:
    """`extgen test` feeds extremes on purpose: the overflows they cause (a float16 cast, the
    Python op's exp) are no news to the user, and the compiler's chatter is not either."""
    from extgen.generator.generate import generate, validate_config

    op = {"name": "Cosh", "attributes": [{"name": "scale", "type": "float", "default": 1.0}],
          "expression": "scale * (exp(x) + exp(-x)) / 2"}
    generate(validate_config({"targets": ["mo-op", "ie-gpu-ext", "ie-vpu-ext"], "ops": [op]}),
             tmp_path / "ext")
    env = child_env(EXTGEN_CACHE_DIR=str(tmp_path / "cache"), POCL_KERNEL_CACHE="0")
    cmd = [sys.executable, "-m", "extgen", "test", str(tmp_path / "ext")]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # what may remain: extgen's own note that a half kernel runs in float32 on this device
    rest = [ln for ln in done.stderr.splitlines() if "no cl_khr_fp16" not in ln]
    assert rest == [], done.stderr
    debug = subprocess.run([*cmd, "--log_level", "DEBUG"], cwd=ROOT, env=env,
                           capture_output=True, text=True, check=False)
    assert debug.returncode == 0 and "RuntimeWarning: overflow" in debug.stderr


def test_a_pyopencl_that_does_not_load_is_one_error_line(kernel_dir: Path) -> None:
    """pyopencl installed but built for another Python, or missing a shared library."""
    fake = kernel_dir / "site" / "pyopencl"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise OSError('libOpenCL.so.1: cannot open it')\n")
    env = child_env(EXTGEN_CACHE_DIR=str(kernel_dir / "cache"))
    env["PYTHONPATH"] = f"{fake.parent}:{env['PYTHONPATH']}"
    cmd = [sys.executable, "-m", "extgen", "run", "--model", str(kernel_dir / "model.xml"),
           "--input", f"x={kernel_dir / 'x.npy'}", "--device", "GPU",
           "--config", str(kernel_dir / "leaky_relu.xml")]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("[ ERROR ] GPU/VPU kernels need pyopencl, which does not load on")
    assert "libOpenCL.so.1" in line and "pip install pyopencl" in line


def test_a_warning_logged_while_native_stderr_is_kept_off_still_shows() -> None:
    """Only what a C library writes to fd 2 is kept off: extgen's own log lines (a handler
    holding the old sys.stderr) reach the terminal while the block runs."""
    code = ("import logging, os, sys\n"
            "logging.basicConfig(level=logging.WARNING, stream=sys.stderr)\n"
            "from converter.runtime.quiet import native_stderr_logged\n"
            "with native_stderr_logged('probe'):\n"
            "    logging.getLogger('extgen').warning('still shown')\n"
            "    os.write(2, b'driver chatter\\n')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=child_env(), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "still shown" in done.stderr and "driver chatter" not in done.stderr
