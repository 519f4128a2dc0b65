"""The two engines `extgen run` drives: the shim (ours) and the real OpenVINO runtime, behind
one small interface: inputs() and run(feed) -> outputs by tensor name."""

from __future__ import annotations

import logging
import re
import tempfile
from pathlib import Path
from typing import NamedTuple, Protocol

import numpy as np

from converter.errors import ExtensionError, ExtgenError, ModelFormatError, UsageError
from converter.ir.reader import read_ir
from converter.ir.types import dtype_of
from converter.runtime.executor import Device, Executor, OpTimes

__all__ = ["Engine", "InputSpec", "add_ov_extensions", "open_engine", "parse_device"]

DEVICES = ("CPU", "GPU", "VPU")
log = logging.getLogger("extgen")


class InputSpec(NamedTuple):
    """One model input: the name outputs and messages use, and every name a feed may use."""

    name: str
    dtype: np.dtype
    shape: tuple[int, ...]
    names: frozenset[str]


class Engine(Protocol):
    def inputs(self) -> list[InputSpec]: ...

    def run(self, feed: dict[str, np.ndarray],
            times: OpTimes | None = None) -> dict[str, np.ndarray]: ...


def parse_device(text: str) -> list[str]:
    """'CPU' -> ['CPU']; 'HETERO:GPU,CPU' -> ['GPU', 'CPU']."""
    names = text.split(":", 1)[1].split(",") if text.upper().startswith("HETERO:") else [text]
    names = [n.strip().upper() for n in names if n.strip()]
    bad = [n for n in names if n not in DEVICES]
    if bad or not names:
        msg = (f"--device {text}: unknown device {', '.join(bad) or '(none)'}; "
               "use CPU, GPU, VPU or HETERO:GPU,CPU")
        raise UsageError(msg)
    return names


def _shim_device(name: str, extensions: list[Path], configs: list[Path]) -> Device:
    if name == "CPU":
        from converter.runtime.cpu import CpuDevice

        return CpuDevice(extensions)
    if name == "GPU":
        from converter.runtime.opencl.gpu import GpuDevice

        return GpuDevice(configs)
    from converter.runtime.opencl.vpu import VpuDevice

    return VpuDevice(configs)


class ShimEngine:
    def __init__(self, model: Path, devices: list[str], extensions: list[Path],
                 configs: list[Path]):
        if len(devices) > 1 and "GPU" in devices and configs:
            log.warning("HETERO: the shim runs the GPU kernels of --config; OpenVINO's GPU plugin "
                        "does not under HETERO (its query_model loads no custom layers), so "
                        "there each custom op runs on the next device")
        self.executor = Executor(read_ir(model),
                                 [_shim_device(d, extensions, configs) for d in devices])
        self.keys = [min(self.executor.result_names(r)[:-1] or [r.name])
                     for r in self.executor.results]

    def inputs(self):
        return [
            InputSpec(name, dtype_of(p.attrs.get("element_type", "f32")), p.outputs[0].dims,
                      frozenset([p.name, *p.outputs[0].names]))
            for name, p in zip(self.executor.input_names, self.executor.parameters)
        ]

    def run(self, feed, times: OpTimes | None = None):
        result = self.executor.run(feed, times)
        return {key: result[key] for key in self.keys}


_OV_LIBRARY = "libuser_cpu_extension.so"
_SHIM_HINT = (f"pass --extension <build>/{_OV_LIBRARY} (the OpenVINO library the generated CMake "
              "build makes; its *_abi.so is for --engine shim)")


def _ov_detail(err: Exception) -> str:
    """OpenVINO's multi-line 'Exception from src/...' message cut to its last real line."""
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith("Exception from ")] or lines or [repr(err)]
    return lines[-1].rstrip(".")


def _add_ov_extension(core, path: Path) -> None:
    try:
        core.add_extension(str(path))
    except RuntimeError as err:
        shim = " it is the shim's library;" if path.name.endswith("_abi.so") else ""
        msg = f"--extension {path}: OpenVINO cannot load it ({_ov_detail(err)});{shim} {_SHIM_HINT}"
        raise ExtensionError(msg) from None


def add_ov_extensions(core, extensions: list[Path]) -> None:
    """Give an openvino.Core the custom ops of --extension paths: a library built from the
    generated C++, or an extensions folder whose Python ops run as OpenVINO Python ops."""
    for path in map(Path, extensions):
        if path.is_dir():
            from converter.ops.loader import python_op_classes
            from converter.runtime.openvino_ops import openvino_extension

            for cls in python_op_classes(path).values():
                core.add_extension(openvino_extension(cls))
        else:
            _add_ov_extension(core, path)


def _read_ov_model(core, model: Path):
    try:
        return core.read_model(str(model))
    except RuntimeError as err:
        detail = _ov_detail(err)
        op = re.search(r"Cannot create (\S+) layer", detail)
        if op:
            msg = f"{model}: OpenVINO does not know op {op.group(1)} ({detail}); {_SHIM_HINT}"
            raise ExtensionError(msg) from None
        raise ModelFormatError(f"{model}: OpenVINO cannot read the IR ({detail})") from None


class OpenVinoEngine:
    def __init__(self, model: Path, devices: list[str], extensions: list[Path],
                 configs: list[Path], profile: bool = False):
        try:
            import openvino as ov
        except ImportError as err:
            msg = "--engine openvino needs the openvino package: pip install 'extgen[openvino]'"
            raise ExtgenError(msg) from err
        core = ov.Core()
        add_ov_extensions(core, extensions)
        available = core.available_devices
        for dev in devices:
            if not any(a.startswith(dev) for a in available):
                msg = f"OpenVINO has no {dev} device here (available: {', '.join(available)})"
                raise UsageError(msg)
        if "GPU" in devices and configs:  # the plugin keeps one CONFIG_FILE: merge them
            from converter.runtime.opencl.gpu_config import merge_gpu

            self._merged = tempfile.TemporaryDirectory(prefix="extgen-gpu-")
            one = merge_gpu(configs, Path(self._merged.name)) if len(configs) > 1 else configs[0]
            core.set_property("GPU", {"CONFIG_FILE": str(Path(one).resolve())})
        target = devices[0] if len(devices) == 1 else "HETERO:" + ",".join(devices)
        config = {"INFERENCE_PRECISION_HINT": "f32"} if target == "CPU" else {}  # compare, not race
        if profile:
            config["PERF_COUNT"] = True  # OpenVINO's per-node counters, read by run(times=...)
        ov_model = _read_ov_model(core, model)
        try:
            self.compiled = core.compile_model(ov_model, target, config)
        except RuntimeError as err:
            msg = (f"{model}: OpenVINO cannot compile it for {target} ({_ov_detail(err)}); "
                   f"{_SHIM_HINT}")
            raise ExtensionError(msg) from None
        self.request = self.compiled.create_infer_request()
        self.ports = {n: p for p in self.compiled.inputs for n in p.get_names()}
        # the IR's names: compiling may merge an output's names with those of tensors it folds
        self.output_names = [_output_name(port) for port in ov_model.outputs]

    def inputs(self):
        out = []
        for port in self.compiled.inputs:
            shape = tuple(d.get_length() if d.is_static else -1 for d in port.get_partial_shape())
            out.append(InputSpec(port.any_name, np.dtype(port.get_element_type().to_dtype()),
                                 shape, frozenset(port.get_names())))
        return out

    def run(self, feed, times: OpTimes | None = None):
        result = self.request.infer({self.ports[k]: v for k, v in feed.items() if k in self.ports})
        if times is not None:  # OpenVINO's own per-node counters (compiled with PERF_COUNT)
            for info in self.request.get_profiling_info():
                if info.status == info.Status.EXECUTED:
                    times.add(info.node_type, info.real_time.total_seconds())
        return {name: np.asarray(result[port])
                for name, port in zip(self.output_names, self.compiled.outputs, strict=True)}


def _output_name(port) -> str:
    """Like the shim: the smallest tensor name, else the Result layer's name."""
    names = port.get_names()
    return min(names) if names else port.get_node().get_friendly_name()


def open_engine(kind: str, model: Path, device: str = "CPU", extensions: list[Path] | None = None,
                configs: list[Path] | None = None, profile: bool = False) -> Engine:
    """The engine `kind` on model; with profile, run(times=...) can report per-op-type times."""
    args = (Path(model), parse_device(device), list(extensions or []), list(configs or []))
    if kind == "openvino":
        return OpenVinoEngine(*args, profile=profile)
    return ShimEngine(*args)
