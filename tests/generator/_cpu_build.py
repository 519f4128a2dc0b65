"""Generating and building the ie-cpu-ext target for the CPU tests: the op set, and cmake."""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from extgen.generator.generate import generate, validate_config

__all__ = ["OPS", "TARGETS", "Built", "build", "generate_ops", "openvino_cmake_dir",
           "tools_missing"]

TARGETS = ["mo-onnx-ext", "mo-op", "ie-cpu-ext"]
OPS = [
    {"name": "ScaledCosh", "framework_types": {"pytorch": "extgen_cpp::scaled_cosh"},
     "attributes": [{"name": "scale", "type": "float", "default": 1.0}],
     "expression": "scale * (exp(x) + exp(-x)) / 2"},
    {"name": "WeightedSum", "inputs": [{"name": "a"}, {"name": "b"}],
     "attributes": [{"name": "alpha", "type": "float", "default": 0.5}],
     "expression": "alpha * a + (1 - alpha) * b"},
    {"name": "TagScale", "expression": "x * 2", "attributes": [
        {"name": "axes", "type": "int_list", "default": [0, 1]},
        {"name": "mode", "type": "string", "default": "fast"},
        {"name": "flag", "type": "bool", "default": True},
        {"name": "gains", "type": "float_list", "default": [0.5, 2]},
    ]},
    {"name": "SoftSignX", "framework_types": {"onnx": "com.example::SoftSignX"},
     "attributes": [{"name": "steps", "type": "int", "default": 1, "framework_name": "n_steps"}],
     "expression": "x / (1 + abs(x)) * steps"},
    # named like the standard Cosh-1: a model may hold both, and each keeps its own kernel
    {"name": "Cosh", "framework_types": {"onnx": "org.example::Cosh"},
     "attributes": [{"name": "scale", "type": "float", "default": 0.5}],
     "expression": "scale * (exp(x) + exp(-x)) / 2"},
    {"name": "Unfinished", "outputs": [{"name": "y"}, {"name": "z"}]},
    {"name": "CustomShaped", "inputs": [{"name": "x"}, {"name": "k"}], "shape": {"kind": "custom"},
     "dtype": {"kind": "fixed", "type": "i64"}},
]


def tools_missing() -> str | None:
    """Why the C++ build cannot run here, or None."""
    for tool in ("cmake", "c++"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


def openvino_cmake_dir() -> str:
    from openvino.utils import get_cmake_path

    return str(get_cmake_path())


def generate_ops(ops: list[dict], out_dir: Path, targets: list[str] = TARGETS):
    return generate(validate_config({"targets": targets, "ops": ops}), out_dir)


@dataclass
class Built:
    source: Path
    build: Path
    seconds: float
    log: str

    @property
    def abi_library(self) -> Path:
        return self.build / "libuser_cpu_extension_abi.so"

    @property
    def openvino_library(self) -> Path:
        return self.build / "libuser_cpu_extension.so"


def build(source: Path, build_dir: Path, *, openvino: bool = True, jobs: int = 2) -> Built:
    """cmake configure + build; raises with the log on failure."""
    where = (f"-DOpenVINO_DIR={openvino_cmake_dir()}" if openvino
             else "-DCMAKE_DISABLE_FIND_PACKAGE_OpenVINO=TRUE")
    start = time.perf_counter()
    log = ""
    for cmd in (["cmake", "-S", str(source), "-B", str(build_dir), where],
                ["cmake", "--build", str(build_dir), f"-j{jobs}"]):
        run = subprocess.run(cmd, capture_output=True, text=True, check=False)
        log += run.stdout + run.stderr
        if run.returncode != 0:
            msg = f"{' '.join(cmd)} failed:\n{log[-6000:]}"
            raise RuntimeError(msg)
    return Built(source, build_dir, time.perf_counter() - start, log)
