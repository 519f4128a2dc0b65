"""VpuDevice: run MVCL custom kernels (MYRIAD plugin's XML contract) from their .cl via pyopencl."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from converter.errors import KernelConfigError
from converter.ir.reader import IRLayer
from converter.runtime.executor import Device, Kernel
from converter.runtime.opencl import build, launch
from converter.runtime.opencl.config import VpuScalar, VpuStage, load_vpu
from converter.runtime.opencl.jit import bfyx, from_layout, map_half, to_layout
from converter.runtime.opencl.signature import Param, kernel_params

__all__ = ["VpuDevice"]

def _matches(stage: VpuStage, attrs: dict[str, str]) -> bool:
    def norm(v: str | None) -> str | None:
        return None if v is None else re.sub(r"\s+", "", v)
    return all(norm(attrs.get(k)) == norm(v) for k, v in stage.where.items())


class _Stage:
    """One MVCL stage: its source, signature and the position of each bound argument."""

    def __init__(self, cfg: VpuStage) -> None:
        self.cfg = cfg
        self.where = f"{cfg.config}:{cfg.line}"
        self.label = f"kernel '{cfg.entry}' of {cfg.name} stage {cfg.stage} ({cfg.config.name})"
        self.text = "".join(f'#line 1 "{p.name}"\n{p.read_text(encoding="utf-8")}\n'
                            for p in cfg.sources)
        params = kernel_params(self.text, cfg.entry)
        if params is None:
            files = ", ".join(p.name for p in cfg.sources)
            msg = f"{self.where}: no __kernel named '{cfg.entry}' in {files}"
            raise KernelConfigError(msg)
        self.params = params
        names = [p.name for p in params]
        bound = [x.arg_name for x in (*cfg.tensors, *cfg.data)] + [s.name for s in cfg.scalars]
        for arg in bound:
            if arg not in names:
                msg = (f"{self.where}: arg-name '{arg}' is not a parameter of "
                       f"{cfg.entry}({', '.join(names)})")
                raise KernelConfigError(msg)
        missing = [n for n in names if n not in bound]
        if missing:
            msg = (f"{self.where}: parameter(s) {', '.join(missing)} of {cfg.entry} "
                   "have no binding in <Parameters>")
            raise KernelConfigError(msg)
        blobs = [d.arg_name for d in cfg.data if d.kind == "data"]
        blobs += [t.arg_name for t in cfg.tensors if t.kind == "data"]
        if blobs:
            msg = (f"{self.where}: '{blobs[0]}' binds an IR weight blob (type=\"data\"), "
                   "which IR v10+ no longer has; "
                   "pass the weights as a Const input with <Tensor type=\"input\">")
            raise KernelConfigError(msg)

    def param(self, name: str) -> tuple[int, Param]:
        i = next(i for i, p in enumerate(self.params) if p.name == name)
        return i, self.params[i]


class _VpuKernel:
    """A chain of MVCL stages bound to one IR layer; call with the inputs in port order."""

    def __init__(self, stages: list[VpuStage], layer: IRLayer) -> None:
        self.stages = [_Stage(s) for s in stages]
        self.layer = layer

    def _dims(self, kind: str, port: int, ins: Sequence[np.ndarray], where: str) -> dict[str, int]:
        if kind == "input":
            if port >= len(ins):
                msg = (f"{where}: refers to input {port} "
                       f"but layer '{self.layer.name}' has {len(ins)} inputs")
                raise KernelConfigError(msg)
            shape = ins[port].shape
        else:
            shape = launch.output_spec(self.layer, port, ins)[0]
        return dict(zip("BFYX", bfyx(shape)))

    def _eval(self, expr: Any, dims: dict[str, int], where: str) -> int:
        try:
            return expr.evaluate(dims)
        except ValueError as err:
            msg = f"{where}: invalid size '{expr.text}' for {dims}: {err}"
            raise KernelConfigError(msg) from None

    def _scalar(self, s: VpuScalar, p: Param, ins: Sequence[np.ndarray], where: str) -> Any:
        dimension = s.dimension()
        if dimension:
            kind, port, letter = dimension
            value: float = self._dims(kind, port, ins, where)[letter]
        elif s.source in self.layer.attrs:
            raw = self.layer.attrs[s.source]
            try:
                value = int(raw) if s.type == "int" else float(raw)
            except ValueError:
                msg = (f"{where}: Scalar '{s.name}': attribute {s.source}='{raw}' "
                       f"is not one {s.type}")
                raise KernelConfigError(msg) from None
        else:
            msg = (f"{where}: Scalar '{s.name}' source '{s.source}' "
                   "is neither I/O dims (I.X, O0.F) "
                   f"nor an attribute of layer '{self.layer.name}' "
                   f"({', '.join(self.layer.attrs) or 'none'})")
            raise KernelConfigError(msg)
        dtype = p.dtype or np.dtype(np.int32 if s.type == "int" else np.float32)
        return np.array(value).astype(launch.transfer_dtype(dtype))[()]

    def __call__(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        ins = [np.asarray(a) for a in inputs]
        outs: dict[int, tuple[Any, str, np.dtype]] = {}
        buffers: dict[int, tuple[Any, int]] = {}
        for st in self.stages:
            args: list[Any] = [None] * len(st.params)
            for t in st.cfg.tensors:
                i, p = st.param(t.arg_name)
                if t.kind == "input":
                    self._dims("input", t.port, ins, st.where)  # checks the port exists
                    a = ins[t.port]
                    dtype = launch.transfer_dtype(p.dtype or a.dtype)
                    args[i] = launch.upload(to_layout(a.astype(dtype, copy=False), t.format))
                elif t.kind == "output":
                    if t.port not in outs:
                        shape, ir_dtype = launch.output_spec(self.layer, t.port, ins)
                        dtype = launch.transfer_dtype(p.dtype or ir_dtype)
                        count = int(np.prod(shape, dtype=np.int64))
                        outs[t.port] = (launch.empty(count * dtype.itemsize), t.format, dtype)
                    args[i] = outs[t.port][0]
                else:
                    size = self._eval(t.size, self._dims(*t.dim, ins, st.where), st.where)
                    if t.port not in buffers:
                        buffers[t.port] = (launch.empty(size), size)
                    elif size > buffers[t.port][1]:
                        msg = (f"{st.where}: buffer port-index {t.port} '{t.arg_name}' "
                               f"needs {size} bytes but an earlier stage made it "
                               f"{buffers[t.port][1]}")
                        raise KernelConfigError(msg)
                    args[i] = buffers[t.port][0]
            for s in st.cfg.scalars:
                i, p = st.param(s.name)
                args[i] = self._scalar(s, p, ins, st.where)
            for d in st.cfg.data:
                i, _ = st.param(d.arg_name)
                size = self._eval(d.size, self._dims(*d.dim, ins, st.where), st.where)
                args[i] = build.opencl().LocalMemory(max(size, 1))
            self._launch(st, args, ins)
        return self._results(outs, ins)

    def _launch(self, st: _Stage, args: list[Any], ins: Sequence[np.ndarray]) -> None:
        text, half = map_half(st.text, build.has_fp16())
        if half:
            launch.warn_half(st.label)
        kernel = build.kernel(text, "", st.label, st.cfg.entry)
        dims = self._dims(*st.cfg.work.dim, ins, st.where)
        gws = [self._eval(e, dims, st.where) for e in st.cfg.work.global_]
        lws = [self._eval(e, dims, st.where) for e in st.cfg.work.local]
        launch.enqueue(kernel, gws, lws, args, st.label)

    def _results(self, outs: dict[int, tuple[Any, str, np.dtype]],
                 ins: Sequence[np.ndarray]) -> list[np.ndarray]:
        results = []
        for port in range(len(self.layer.outputs)):
            if port not in outs:
                msg = (f"{self.stages[0].where}: output {port} of layer '{self.layer.name}' "
                       "is written by no <Tensor type=\"output\">")
                raise KernelConfigError(msg)
            buf, fmt, dtype = outs[port]
            shape, ir_dtype = launch.output_spec(self.layer, port, ins)
            flat = launch.download(buf, dtype, int(np.prod(shape, dtype=np.int64)))
            with np.errstate(over="ignore"):  # past float16's range is inf, as on the device
                results.append(from_layout(flat, shape, fmt).astype(ir_dtype, copy=False))
        return results


class VpuDevice(Device):
    """Custom ops bound by `<CustomLayer type="MVCL">` configs. A layer's bindings are the
    CustomLayer elements with its name and the same <Where>, chained by `stage`; the first binding
    whose <Where> matches the layer's attributes wins, later configs searched first."""

    name = "VPU"

    def __init__(self, configs: Sequence[str | Path]) -> None:
        self.bindings: list[list[VpuStage]] = []
        for path in reversed(list(configs)):
            groups: dict[tuple, list[VpuStage]] = {}
            for st in load_vpu(path):
                groups.setdefault((st.name, tuple(sorted(st.where.items()))), []).append(st)
            for stages in groups.values():
                stages.sort(key=lambda s: s.stage)
                seen = [s.stage for s in stages]
                if len(set(seen)) != len(seen):
                    dup = next(s for s in stages if seen.count(s.stage) > 1)
                    msg = (f"{dup.config}:{dup.line}: CustomLayer '{dup.name}' "
                           f"defines stage {dup.stage} twice")
                    raise KernelConfigError(msg)
                self.bindings.append(stages)

    def kernel(self, layer: IRLayer) -> Kernel | None:
        for stages in self.bindings:
            if stages[0].name == layer.type and _matches(stages[0], layer.attrs):
                return _VpuKernel(stages, layer)
        return None
