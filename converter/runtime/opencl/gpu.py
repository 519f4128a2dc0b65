"""GpuDevice: run SimpleGPU custom kernels (the OpenVINO GPU plugin's XML contract) via pyopencl,
with the plugin's JIT: Defines as intel_gpu/src/plugin/ops/custom.cpp writes them, work sizes as
custom_gpu_primitive.hpp's update_work_group_size computes them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from converter.errors import KernelConfigError
from converter.ir.reader import IRLayer
from converter.runtime.executor import Device, Kernel
from converter.runtime.opencl import build, launch
from converter.runtime.opencl.config import other_device
from converter.runtime.opencl.gpu_config import GpuLayer, GpuTensor, load_gpu
from converter.runtime.opencl.jit import PLUGIN_TYPES, TensorDesc, bfyx, builtins, map_half
from converter.runtime.opencl.padding import NO_PADDING, Padding

__all__ = ["GpuDevice", "plugin_float", "work_dims"]


_BOOLS = {"true": "1", "false": "0"}
_NUMBER = {"int": r"[+-]?\d+", "float": r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?"}


def plugin_float(text: str) -> str:
    """A float attribute as the plugin's attribute visitor spells it: the float32 value through
    std::to_string, six decimals (1.6732632 -> 1.673263, 4e-7 -> 0.000000)."""
    return f"{float(np.float32(text)):f}"


def _define(d, attrs: dict[str, str], where: str) -> str:
    """`#define NAME value`, the value checked against the Define's type first: text from an
    IR attribute never reaches the OpenCL compiler unless it is a number or a list of them. An
    attribute's floats get six decimals as in the plugin; a default is written as it is."""
    from_ir = bool(d.param) and d.param in attrs
    value = (attrs[d.param] if from_ir else d.default).strip()
    scalar = d.type.removesuffix("[]") or "float"
    items = [v.strip() for v in value.split(",")] if d.type.endswith("[]") else [value]
    items = [_BOOLS.get(v.lower(), v) for v in items]  # IR booleans bound to an int Define
    if not all(re.fullmatch(_NUMBER[scalar], v) for v in items):
        source = f"attribute {d.param!r}" if from_ir else "default"
        kind = f"a list of {scalar}s" if d.type.endswith("[]") else {"int": "an int"}.get(
            scalar, "a float")
        msg = f"{where}: Define {d.name} got {value!r} from its {source}, not {kind}"
        raise KernelConfigError(msg)
    if from_ir and (scalar == "float" and d.type or not all(re.fullmatch(_NUMBER["int"], v)
                                                           for v in items)):
        items = [plugin_float(v) for v in items]
    value = ",".join(items)
    return f"#define {d.name} ({d.type}) {{{value}}}" if d.type.endswith("[]") else \
        f"#define {d.name} {value}"


def work_dims(kind: str, out_shape: tuple[int, ...], in_shape: tuple[int, ...]) -> dict[str, int]:
    """B, F, Y, X for the WorkSizes: the output's first four dims (a missing one is 1), or with
    dim="input,N" input N's dims from the right, as many as the output has (the rest 0)."""
    if kind == "output":
        return dict(zip("BFYX", bfyx(out_shape)))
    wanted = min(len(out_shape), 4)
    if len(in_shape) < max(wanted, 1):
        msg = (f"the plugin reads {max(wanted, 1)} dim(s) of the rank-{len(in_shape)} input "
               "(one per output dim, from the right)")
        raise KernelConfigError(msg)
    dims = {"B": 0, "F": 0, "Y": 0, "X": int(in_shape[-1])}
    for k, letter in enumerate("YFB", start=2):
        if wanted >= k:
            dims[letter] = int(in_shape[-k])
    return dims


def _check_args(cfg: GpuLayer, layer: IRLayer) -> None:
    where = f"{cfg.config}:{cfg.line}"
    if cfg.data:
        names = ", ".join(n or "?" for n, _ in cfg.data)
        msg = (f"{where}: <Data> ({names}) binds IR v7 weight blobs, which IR v10+ no longer has; "
               "weights arrive as Const inputs: "
               "bind them with <Tensor type=\"input\" port-index=...>")
        raise KernelConfigError(msg)
    indices = sorted(t.arg_index for t in cfg.tensors)
    if indices != list(range(len(indices))):
        msg = f"{where}: Tensor arg-index values {indices} must be 0..{len(indices) - 1}, each once"
        raise KernelConfigError(msg)
    outs = [t for t in cfg.tensors if t.kind == "output"]
    if len(outs) != 1:
        msg = f"{where}: SimpleGPU supports exactly one output Tensor (OUTPUT0), found {len(outs)}"
        raise KernelConfigError(msg)
    for t in cfg.tensors:
        if t.kind == "input" and t.port >= len(layer.inputs):
            msg = (f"{where}: input Tensor port-index {t.port} but layer '{layer.name}' "
                   f"has {len(layer.inputs)} inputs")
            raise KernelConfigError(msg)


class _GpuKernel:
    """One SimpleGPU layer bound to one IR layer; call with the inputs in port order."""

    def __init__(self, cfg: GpuLayer, layer: IRLayer, padding: Padding = NO_PADDING) -> None:
        _check_args(cfg, layer)
        self.cfg, self.layer, self.padding = cfg, layer, padding
        self.label = f"kernel '{cfg.entry}' of {cfg.name} ({cfg.config.name})"
        self.user = "".join(f'#line 1 "{p.name}"\n{p.read_text(encoding="utf-8")}\n'
                            for p in cfg.sources)
        self.formats = {t.port: t.format for t in cfg.tensors if t.kind == "input"}
        self.out_format = next(t.format for t in cfg.tensors if t.kind == "output")

    def _sizes(self, ins: Sequence[np.ndarray],
               out_shape: tuple[int, ...]) -> tuple[list[int], list[int]]:
        kind, port = self.cfg.work.dim
        where = f"{self.cfg.config}:{self.cfg.line}"
        if kind == "input" and port >= len(ins):
            msg = f"{where}: Invalid input tensor for index: {port} (the layer has {len(ins)})"
            raise KernelConfigError(msg)
        try:
            dims = work_dims(kind, out_shape, ins[port].shape if kind == "input" else ())
        except KernelConfigError as err:
            raise KernelConfigError(f"{where}: WorkSizes dim='input,{port}': {err}") from None
        if not self.cfg.work.global_:  # the plugin's default: one item per output element
            return [int(np.prod(out_shape, dtype=np.int64))], []
        try:
            return ([e.evaluate(dims) for e in self.cfg.work.global_],
                    [e.evaluate(dims) for e in self.cfg.work.local])
        except ValueError as err:
            msg = f"{where}: invalid WorkSizes for {dims}: {err}"
            raise KernelConfigError(msg) from None

    def source(self, ins: Sequence[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype,
               gws: list[int], lws: list[int]) -> tuple[str, bool]:
        pad = (self.padding.lower, self.padding.upper)
        descs = [TensorDesc(f"INPUT{i}", tuple(a.shape), a.dtype, self.formats.get(i, "BFYX"), *pad)
                 for i, a in enumerate(ins)]
        descs.append(TensorDesc("OUTPUT0", out_shape, out_dtype, self.out_format, *pad))
        odd = sorted({np.dtype(t.dtype).name for t in descs} - PLUGIN_TYPES)
        if odd:
            launch.warn_once(f"types:{self.label}", f"{self.label}: the shim runs {', '.join(odd)}"
                             " tensors, OpenVINO's GPU plugin only i8, u8, i32, i64, f16 and f32")
        defines = "\n".join(_define(d, self.layer.attrs, self.label) for d in self.cfg.defines)
        text = (f"// Custom layer {self.cfg.name}: {self.layer.name}\n"
                f"{builtins(descs, len(ins), gws, lws)}"
                f"// Custom Layer User Defines\n{defines}\n{self.user}")
        return map_half(text, build.has_fp16())

    def __call__(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        ins = [np.asarray(a) for a in inputs]
        out_shape, out_dtype = launch.output_spec(self.layer, 0, ins)
        gws, lws = self._sizes(ins, out_shape)
        text, half = self.source(ins, out_shape, out_dtype, gws, lws)
        if half:
            launch.warn_half(self.label)
        kernel = build.kernel(text, self.cfg.options, self.label, self.cfg.entry)
        before = self.padding.blank(out_shape, launch.transfer_dtype(out_dtype))
        out_buf = launch.upload(before) if self.padding else launch.empty(before.nbytes)
        args = [self._arg(t, ins, out_buf)
                for t in sorted(self.cfg.tensors, key=lambda t: t.arg_index)]
        launch.enqueue(kernel, gws, lws, args, self.label)
        flat = launch.download(out_buf, before.dtype, before.size)
        y = self.padding.valid(flat, out_shape, self.out_format, before, self.label)
        with np.errstate(over="ignore"):  # past float16's range is inf, as on the device
            return [y.astype(out_dtype, copy=False)]

    def _arg(self, t: GpuTensor, ins: Sequence[np.ndarray], out_buf):
        if t.kind == "output":
            return out_buf
        a = ins[t.port]
        host = a.astype(launch.transfer_dtype(a.dtype), copy=False)
        return launch.upload(self.padding.layout(host, t.format))


class GpuDevice(Device):
    """Custom ops bound by `<CustomLayer type="SimpleGPU">` configs; a later config (or a later
    layer of the same name) overrides an earlier one, as in the GPU plugin."""

    name = "GPU"

    def __init__(self, configs: Sequence[str | Path], padding: Padding = NO_PADDING) -> None:
        self.padding = padding  # given to every tensor (converter.runtime.opencl.padding)
        self.layers: dict[str, GpuLayer] = {}
        for path in (p for p in configs if not other_device(p, "SimpleGPU")):
            for cfg in load_gpu(path):
                self.layers[cfg.name] = cfg

    def kernel(self, layer: IRLayer) -> Kernel | None:
        cfg = self.layers.get(layer.type)
        return _GpuKernel(cfg, layer, self.padding) if cfg is not None else None
