"""VpuDevice: run MVCL custom kernels (MYRIAD plugin's XML contract) from their .cl via pyopencl,
reading sizes and Scalars as the MYRIAD plugin of 2022.3 does
(src/plugins/intel_myriad/graph_transformer/src/stages/custom.cpp, frontend/frontend.cpp)."""

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
from converter.runtime.opencl.config import other_device
from converter.runtime.opencl.jit import from_layout, map_half, to_layout
from converter.runtime.opencl.signature import Param, kernel_params
from converter.runtime.opencl.vpu_config import VpuScalarArg, VpuStage, load_vpu
from converter.runtime.opencl.vpu_select import (
    check_format,
    check_ranks,
    choose,
    desc_dims,
    myriad_4d,
    suitable,
)

__all__ = ["VpuDevice"]

_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_STORED = {"BYXF": "BYXF", "YXF": "BYXF"}  # the shim's storage of each format; others BFYX
_INT_ARGS = (np.dtype(np.int32), np.dtype(np.uint32))  # a Scalar int travels as 32 bits


def _prefix_number(text: str, kind: str) -> float | None:
    """std::stoi / std::stof: the number at the start of text, else None."""
    m = re.match(r"\s*[+-]?\d+" if kind == "int" else _NUMBER.pattern, text)
    return None if m is None else (int(m.group()) if kind == "int" else float(m.group()))


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
        for arg in (a for a in bound if a not in names):
            launch.warn_once(f"arg:{self.where}:{arg}", f"{self.where}: arg-name '{arg}' is no "
                             f"parameter of {cfg.entry}: the MYRIAD plugin ignores it")
        missing = [n for n in names if n not in bound]
        if missing:  # CustomStage::serializeParamsImpl walks the kernel's own parameters
            msg = (f"{self.where}: XML specification for {cfg.name} layer has no definition for "
                   f"'{missing[0]}' parameter of {cfg.entry}({', '.join(names)})")
            raise KernelConfigError(msg)
        blobs = [d.arg_name for d in cfg.data if d.kind == "data"]
        blobs += [t.arg_name for t in cfg.tensors if t.kind == "data"]
        if blobs:
            msg = (f"{self.where}: '{blobs[0]}' binds an IR weight blob (type=\"data\"), "
                   "which IR v10+ no longer has; "
                   "pass the weights as a Const input with <Tensor type=\"input\">")
            raise KernelConfigError(msg)
        self._check_types()

    def _check_types(self) -> None:
        """Each binding passes what the plugin serializes: a buffer pointer for a Tensor, a
        __local pointer for local_data, a 32-bit int or a float for a Scalar."""
        cfg = self.cfg
        wants = [(t.arg_name, "a __global pointer", lambda p: p.pointer and not p.local)
                 for t in cfg.tensors]
        wants += [(d.arg_name, "a __local pointer", lambda p: p.pointer and p.local)
                  for d in cfg.data]
        wants += [(s.name, "an int or uint (the plugin passes 32 bits)" if s.type == "int"
                   else "a float (the plugin passes a 32-bit float)",
                   lambda p, s=s: not p.pointer and p.dtype in (
                       _INT_ARGS if s.type == "int" else (np.dtype(np.float32),)))
                  for s in cfg.scalars]
        for name, what, ok in wants:
            p = self.param(name)
            if p is not None and (p.dtype is not None or p.pointer) and not ok(p):
                kind = p.dtype.name if p.dtype is not None else "?"
                msg = (f"{self.where}: '{name}' must be {what}, but {cfg.entry} declares "
                       f"{'a pointer to ' if p.pointer else ''}{kind}")
                raise KernelConfigError(msg)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def index(self, name: str) -> int:
        return next(i for i, p in enumerate(self.params) if p.name == name)


class _VpuKernel:
    """A chain of MVCL stages bound to one IR layer; call with the inputs in port order."""

    def __init__(self, candidates: list[list[VpuStage]], layer: IRLayer) -> None:
        self.candidates = candidates
        self.chains = [[_Stage(s) for s in stages] for stages in candidates]
        self.stages = self.chains[0]
        self.layer = layer
        if len(layer.outputs) != 1:  # FrontEnd::parseCustom: IE_ASSERT(outputs.size() == 1)
            msg = (f"{self.stages[0].where}: layer '{layer.name}' has {len(layer.outputs)} "
                   "outputs; the MYRIAD plugin runs a custom layer with one output only")
            raise KernelConfigError(msg)

    def _choose(self, ins: Sequence[np.ndarray]) -> list[_Stage]:
        """getSuitableCustomLayer's last step: the binding for these inputs' layouts."""
        where = f"{self.candidates[0][0].config.name}, layer '{self.layer.name}'"
        check_ranks("input", [a.shape for a in ins], where)
        check_ranks("output", [launch.output_spec(self.layer, 0, ins)[0]], where)
        return self.chains[choose(self.candidates, [a.ndim for a in ins])]

    def _dims(self, kind: str, port: int, ins: Sequence[np.ndarray], where: str) -> dict[str, int]:
        if kind == "input":
            if port >= len(ins):
                msg = (f"{where}: refers to input {port} "
                       f"but layer '{self.layer.name}' has {len(ins)} inputs")
                raise KernelConfigError(msg)
            shape = ins[port].shape
        else:
            shape = self._shape("output", port, ins, where)
        return desc_dims(tuple(shape))

    def _shape(self, kind: str, port: int, ins: Sequence[np.ndarray], where: str) -> tuple:
        count = len(ins) if kind == "input" else len(self.layer.outputs)
        if not 0 <= port < count:
            msg = (f"{where}: refers to {kind} {port} "
                   f"but layer '{self.layer.name}' has {count} {kind}s")
            raise KernelConfigError(msg)
        return tuple(ins[port].shape if kind == "input"
                     else launch.output_spec(self.layer, port, ins)[0])

    def _eval(self, expr: Any, dims: dict[str, int], where: str) -> int:
        try:
            return expr.evaluate(dims, self.layer.attrs)
        except ValueError as err:
            msg = f"{where}: invalid size '{expr.text}' for {dims}: {err}"
            raise KernelConfigError(msg) from None

    def _scalar(self, s: VpuScalarArg, p: Param, ins: Sequence[np.ndarray], where: str) -> Any:
        value = self._scalar_value(s, ins, f"{where}: Scalar '{s.name}'")
        dtype = p.dtype or np.dtype(np.int32 if s.type == "int" else np.float32)
        return np.array(value).astype(launch.transfer_dtype(dtype))[()]

    def _scalar_value(self, s: VpuScalarArg, ins: Sequence[np.ndarray], label: str) -> float:
        """CustomStage::serializeParamsImpl: an attribute (with port-index, one item of a list),
        else `<blob>.<letter>` dims (blob exactly I is input port-index, any other blob output
        port-index; dims counted from the right), else a number."""
        attrs = self.layer.attrs
        if s.source in attrs:
            raw = attrs[s.source]
            if s.port >= 0:
                items = raw.split(",")
                if len(items) < 2 or s.port >= len(items):
                    msg = (f"{label}: port-index={s.port} is set but attribute "
                           f"{s.source}='{raw}' is not a list that long")
                    raise KernelConfigError(msg)
                raw = items[s.port]
            value = _prefix_number(raw, s.type)
            if value is None:
                msg = f"{label}: attribute {s.source}='{raw}' is not one {s.type}"
                raise KernelConfigError(msg)
            return value
        blob, dot, letter = s.source.partition(".")
        if dot:
            if len(letter) != 1 or letter.upper() not in "BFYX":
                msg = f"{label}: unable to deduce '{s.source}' (a dim is B, F, Y or X)"
                raise KernelConfigError(msg)
            kind = "input" if blob == "I" else "output"
            shape = self._shape(kind, s.port, ins, label)
            at = "BFYX".index(letter.upper()) - 4 + len(shape)
            if at < 0:
                msg = (f"{label}: '{s.source}' of a rank-{len(shape)} {kind}: the plugin counts "
                       f"dims from the right (X last), so rank {len(shape)} has no {letter}")
                raise KernelConfigError(msg)
            return int(shape[at])
        value = None if s.port >= 0 else _prefix_number(s.source, s.type)
        if value is None:
            msg = (f"{label}: source '{s.source}' is neither an attribute of layer "
                   f"'{self.layer.name}' ({', '.join(attrs) or 'none'}), nor I.X-like dims, "
                   "nor a number")
            raise KernelConfigError(msg)
        return value

    def __call__(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        ins = [np.asarray(a) for a in inputs]
        self.stages = self._choose(ins)
        outs: dict[int, tuple[Any, str, np.dtype]] = {}
        buffers: dict[int, tuple[Any, int]] = {}
        for st in self.stages:
            args: list[Any] = [None] * len(st.params)
            for t in (t for t in st.cfg.tensors if st.param(t.arg_name)):
                i, p = st.index(t.arg_name), st.param(t.arg_name)
                what = f"{st.where}: {t.kind} Tensor '{t.arg_name}'"
                if t.kind == "input":
                    self._dims("input", t.port, ins, st.where)  # checks the port exists
                    a = ins[t.port]
                    check_format(t.format, a.shape, what)
                    host = a.astype(launch.transfer_dtype(p.dtype or a.dtype), copy=False)
                    args[i] = launch.upload(to_layout(host.reshape(myriad_4d(a.shape)),
                                                      _STORED.get(t.format, "BFYX")))
                elif t.kind == "output":
                    if t.port not in outs:
                        shape, ir_dtype = launch.output_spec(self.layer, t.port, ins)
                        check_format(t.format, shape, what)
                        dtype = launch.transfer_dtype(p.dtype or ir_dtype)
                        count = int(np.prod(shape, dtype=np.int64))
                        outs[t.port] = (launch.empty(count * dtype.itemsize), t.format, dtype)
                    args[i] = outs[t.port][0]
                else:
                    args[i] = self._buffer(st, t, ins, buffers)
            for s in (s for s in st.cfg.scalars if st.param(s.name)):
                args[st.index(s.name)] = self._scalar(s, st.param(s.name), ins, st.where)
            for d in (d for d in st.cfg.data if st.param(d.arg_name)):
                size = self._eval(d.size, self._dims(*d.dim, ins, st.where), st.where)
                args[st.index(d.arg_name)] = build.opencl().LocalMemory(max(size, 1))
            self._launch(st, args, ins)
        return self._results(outs, ins)

    def _buffer(self, st: _Stage, t: Any, ins: Sequence[np.ndarray],
                buffers: dict[int, tuple[Any, int]]) -> Any:
        """input_buffer/output_buffer: one buffer per port-index across the stages, of `size`
        elements of the plugin's default data type, fp16 (parseCustom: DataDesc({size,1,1,1}))."""
        size = self._eval(t.size, self._dims(*t.dim, ins, st.where), st.where)
        if t.port not in buffers:
            buffers[t.port] = (launch.empty(2 * size), size)
        elif size > buffers[t.port][1]:
            msg = (f"{st.where}: buffer port-index {t.port} '{t.arg_name}' has size {size}, but "
                   f"the plugin makes it once, of the first size ({buffers[t.port][1]})")
            raise KernelConfigError(msg)
        return buffers[t.port][0]

    def _launch(self, st: _Stage, args: list[Any], ins: Sequence[np.ndarray]) -> None:
        text, half = map_half(st.text, build.has_fp16())
        if half:
            launch.warn_half(st.label)
        kernel = build.kernel(text, "", st.label, st.cfg.entry)
        dims = self._dims(*st.cfg.work.dim, ins, st.where)
        gws = [self._eval(e, dims, st.where) for e in st.cfg.work.global_]
        lws = [self._eval(e, dims, st.where) for e in st.cfg.work.local]
        launch.enqueue(kernel, _whole_groups(gws, lws, st.label), lws, args, st.label)

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
            plain = from_layout(flat, myriad_4d(shape), _STORED.get(fmt, "BFYX")).reshape(shape)
            with np.errstate(over="ignore"):  # past float16's range is inf, as on the device
                results.append(plain.astype(ir_dtype, copy=False))
        return results


def _whole_groups(gws: list[int], lws: list[int], label: str) -> list[int]:
    """The global sizes the device runs: CustomStage serializes gws[i] / lws[i] work-groups (C
    division), so a remainder is dropped."""
    out = []
    for g, n in zip(gws, lws):
        if n <= 0 or g < n:
            msg = (f"{label}: global {g} over local {n} is no work-group (the plugin runs "
                   "global/local groups of local items each)")
            raise KernelConfigError(msg)
        if g % n:
            launch.warn_once(f"groups:{label}:{g}:{n}", f"{label}: global {g} is no multiple of "
                             f"local {n}: the MYRIAD plugin runs {g // n * n} items, as here")
        out.append(g // n * n)
    return out


class VpuDevice(Device):
    """Custom ops bound by `<CustomLayer type="MVCL">` configs. Each CustomLayer is one binding
    (its Kernels chained by stage); of several with a layer's type, the plugin's choice wins
    (vpu_select: <Where> met, work sizes parse, input formats match), later configs first."""

    name = "VPU"

    def __init__(self, configs: Sequence[str | Path]) -> None:
        self.bindings: list[list[VpuStage]] = []
        for path in reversed([p for p in configs if not other_device(p, "MVCL")]):
            groups: dict[int, list[VpuStage]] = {}
            for st in load_vpu(path):
                groups.setdefault(st.binding, []).append(st)
            self.bindings += groups.values()

    def kernel(self, layer: IRLayer) -> Kernel | None:
        named = [b for b in self.bindings  # the plugin's names are caseless
                 if b[0].name.lower() == layer.type.lower()]
        candidates = suitable(named, layer.attrs)
        return _VpuKernel(candidates, layer) if candidates else None
