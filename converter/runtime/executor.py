"""Turn an IRModel into an executable plan and run it: layers in topological order, each
output buffer freed after its last consumer. Built-in ops run their `Op.compute`; custom ops
run on the first device of the list that has a kernel for them."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from converter.errors import ExtgenError, ModelFormatError, UsageError
from converter.ir.attrs import typed_attrs
from converter.ir.reader import IRLayer, IRModel
from converter.ir.types import dtype_of, parse_attr
from converter.ops import native
from converter.ops.control._body import Spec
from converter.ops.native.blas import one_blas_thread
from converter.ops.op import Op, ir_op_class
from converter.runtime.fusion import fuse
from converter.runtime.joined import join_concats
from converter.system import keep_freed_memory

log = logging.getLogger("extgen")

__all__ = ["Device", "Executor", "KernelNotFoundError", "OpTimes", "Step"]

Kernel = Callable[[list[np.ndarray]], list[np.ndarray]]


class KernelNotFoundError(ExtgenError):
    """A custom op has no kernel on any device of the list."""

    exit_code = 2


class Device:
    """A place kernels come from. `kernel(layer)` returns a callable or None."""

    name = "CPU"

    def kernel(self, layer: IRLayer) -> Kernel | None:
        return None


def layer_attrs(cls: type[Op], layer: IRLayer) -> dict[str, Any]:
    """The layer's IR attribute strings as the op's typed values, its defaults filled in."""
    return typed_attrs(cls, layer.attrs, f"layer '{layer.name}' ({layer.type})")


def op_kernel(cls: type[Op], layer: IRLayer) -> Kernel:
    """The numpy kernel of op class cls for this layer."""
    attrs = layer_attrs(cls, layer)
    return lambda inputs: cls.compute(attrs, inputs)


def builtin_kernel(layer: IRLayer, values: list[np.ndarray | None] | None = None,
                   used: list[bool] | None = None) -> Kernel | None:
    """The numpy kernel of a built-in opset op (its plan-time path for the constant input
    `values` and the `used` outputs), or None for an unknown type/opset or an op extgen
    defines only the shapes of (RandomUniform, the ExperimentalDetectron ops, ...)."""
    cls = ir_op_class(layer.type, layer.version)
    if cls is None or not cls.has_evaluate():
        return None
    used = [True] * len(layer.outputs) if used is None else used
    return cls.plan(layer_attrs(cls, layer), values or [None] * len(layer.inputs), used)


def _precision(text: str) -> np.dtype | None:
    try:
        return dtype_of(text)
    except ValueError:
        return None


@dataclass
class OpTimes:
    """Seconds and layer runs per op type, summed over runs (`benchmark_app -pc` style)."""

    seconds: dict[str, float] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)

    def add(self, op_type: str, seconds: float) -> None:
        self.seconds[op_type] = self.seconds.get(op_type, 0.0) + seconds
        self.calls[op_type] = self.calls.get(op_type, 0) + 1


@dataclass
class Step:
    layer: IRLayer
    kernel: Kernel
    inputs: list[int]  # buffer slots
    device: str
    outputs: list[int] = field(default_factory=list)
    free_after: list[int] = field(default_factory=list)  # slots last read here
    builtin: bool = False  # the op's own numpy kernel: its outputs are fresh arrays
    fused: list[str] = field(default_factory=list)  # types of the layers fused into it


def _topological(model: IRModel) -> list[IRLayer]:
    deps: dict[int, set[int]] = {lid: set() for lid in model.layers}
    for (to_layer, _), (from_layer, _) in model.edges.items():
        deps[to_layer].add(from_layer)
    order, ready = [], sorted(lid for lid, d in deps.items() if not d)
    users: dict[int, list[int]] = {}
    for lid, d in deps.items():
        for src in d:
            users.setdefault(src, []).append(lid)
    remaining = {lid: len(d) for lid, d in deps.items()}
    while ready:
        lid = ready.pop(0)
        order.append(model.layers[lid])
        for user in sorted(users.get(lid, [])):
            remaining[user] -= 1
            if remaining[user] == 0:
                ready.append(user)
    if len(order) != len(model.layers):
        msg = f"{model.path}: the IR's edges form a cycle"
        raise ModelFormatError(msg)
    return order


def _warn_bound_by_type(steps: list[Step]) -> None:
    """OpenVINO's GPU and VPU plugins bind a custom-layer config by layer type alone, so its
    kernel replaces standard layers of that type too; the shim does the same and says so, once
    per device and type, naming the standard layers."""
    replaced: dict[tuple[str, str], list[IRLayer]] = {}
    for step in steps:
        if (step.device in ("GPU", "VPU") and not step.builtin
                and step.layer.version.startswith("opset")):
            replaced.setdefault((step.device, step.layer.type), []).append(step.layer)
    for (device, kind), layers in replaced.items():
        names = ", ".join(f"'{lay.name}'" for lay in layers[:5]) + (", ..." if len(layers) > 5
                                                                   else "")
        log.warning("%s: the --config kernel for type %s also runs the standard %s-%s layer(s) "
                    "%s, as OpenVINO's %s plugin binds custom layers by type alone; give the "
                    "custom op another name to keep the standard one", device, kind, kind,
                    layers[0].version.removeprefix("opset"), names, device)


class Executor:
    """Executes one IR on a device list such as [GPU device, CPU device]."""

    def __init__(self, model: IRModel, devices: Sequence[Device]) -> None:
        self.model = model
        self.devices = list(devices)
        self.variables: dict[str, np.ndarray] = {}  # ReadValue/Assign state across run() calls
        self._assigned: dict[str, np.ndarray] = {}
        self.parameters = [lay for lay in model.layers.values() if lay.type == "Parameter"]
        self.results = [lay for lay in model.layers.values() if lay.type == "Result"]
        self.steps = self._plan()
        keep_freed_memory()
        self._result_ids = [r.id for r in self.results]
        self._result_names = {r.id: self.result_names(r) for r in self.results}
        self._inputs = [self._input_spec(p) for p in self.parameters]

    def _source(self, layer: IRLayer, position: int) -> tuple[int, int]:
        port = layer.inputs[position]
        try:
            src_layer, src_port = self.model.edges[(layer.id, port)]
        except KeyError:
            msg = f"{self.model.path}: input port {port} of layer '{layer.name}' is not connected"
            raise ModelFormatError(msg) from None
        outs = [p.id for p in self.model.layers[src_layer].outputs]
        return src_layer, outs.index(src_port)

    def _kernel(self, layer: IRLayer, values: list[np.ndarray | None],
                used: list[bool]) -> tuple[Kernel, str, bool]:
        """(kernel, device name, whether it is the op's built-in numpy kernel)."""
        if layer.bodies:
            return self._subgraph_kernel(layer), "CPU", False
        for device in self.devices:
            kernel = device.kernel(layer)
            if kernel is not None:
                return kernel, device.name, False
        kernel = builtin_kernel(layer, values, used)
        if kernel is not None:
            return kernel, self.devices[-1].name if self.devices else "CPU", True
        names = ", ".join(d.name for d in self.devices) or "CPU"
        msg = (
            f"layer '{layer.name}' of type {layer.type} ({layer.version}) has no kernel on "
            f"{names}: pass --extension LIB.so (CPU), --config KERNELS.xml (GPU/VPU), or an "
            "--extensions folder whose ops/ defines it"
        )
        raise KernelNotFoundError(msg)

    def _subgraph_kernel(self, layer: IRLayer) -> Kernel:
        """A sub-graph op (If, Loop, ...) running its bodies on executors of this device list."""
        cls = ir_op_class(layer.type, layer.version)
        if cls is None:
            msg = f"layer '{layer.name}' of type {layer.type} ({layer.version}) is not supported"
            raise KernelNotFoundError(msg)
        attrs = layer_attrs(cls, layer)
        attrs["port_maps"] = layer.port_maps
        attrs["bodies"] = {name: _Body(Executor(body, self.devices))
                           for name, body in layer.bodies.items()}
        return lambda inputs: cls.compute(attrs, inputs)

    def _plan(self) -> list[Step]:
        """Steps over numbered buffer slots: Const values sit in their slots before a run,
        layers fuse at plan time (converter.runtime.fusion), convolutions write into the
        Concat that reads them (converter.runtime.joined), each slot is freed after the step
        that reads it last."""
        order = _topological(self.model)
        refs = [(lay.id, i) for lay in order for i in range(max(1, len(lay.outputs)))]
        self.slot = {ref: n for n, ref in enumerate(refs)}
        self._initial: list[np.ndarray | None] = [None] * len(self.slot)
        used = {self._source(lay, i) for lay in order for i in range(len(lay.inputs))}
        steps: list[Step] = []
        for layer in order:
            if layer.type == "Parameter":
                continue
            if layer.type == "Const":
                self._initial[self.slot[(layer.id, 0)]] = layer.value
                continue
            refs = [self._source(layer, i) for i in range(len(layer.inputs))]
            builtin = False
            if layer.type == "Result":
                kernel, device = (lambda i: [i[0]]), "CPU"
            elif layer.type in ("ReadValue", "Assign"):
                kernel, device = self._state_kernel(layer), "CPU"
            else:
                self._check_inputs(layer, refs)
                values = [self._const(lid) for lid, _ in refs]
                outs_used = [(layer.id, i) in used for i in range(len(layer.outputs))]
                kernel, device, builtin = self._kernel(layer, values, outs_used)
            outputs = [self.slot[(layer.id, i)] for i in range(max(1, len(layer.outputs)))]
            steps.append(Step(layer, kernel, [self.slot[r] for r in refs], device, outputs,
                              builtin=builtin))
        _warn_bound_by_type(steps)
        steps = join_concats(fuse(steps, self.model, self._initial), self.model)
        consts = {n for n, v in enumerate(self._initial) if v is not None}
        last_use: dict[int, Step] = {}
        for step in steps:
            for n in step.inputs:
                last_use[n] = step
        for n, step in last_use.items():
            if n not in consts:
                step.free_after.append(n)
        return steps

    def _const(self, layer_id: int) -> np.ndarray | None:
        layer = self.model.layers[layer_id]
        return layer.value if layer.type == "Const" else None

    def _state_kernel(self, layer: IRLayer) -> Kernel:
        """ReadValue gives the variable as the last run() left it (its init input before any,
        zeros without one); Assign's value becomes the variable when this run() ends, as in
        OpenVINO."""
        var = layer.attrs.get("variable_id", "")
        if layer.type == "ReadValue":
            out = layer.outputs[0]
            return lambda i: [self.variables.get(var, i[0] if i else np.zeros(
                out.dims, _precision(out.precision)))]

        def assign(i: list[np.ndarray]) -> list[np.ndarray]:
            self._assigned[var] = i[0]
            return [i[0]]
        return assign

    def reset_state(self) -> None:
        """Forget every variable (the next run() starts from the init values)."""
        self.variables.clear()

    def _check_inputs(self, layer: IRLayer, inputs: list[tuple[int, int]]) -> None:
        """The op's own input check (ranks, channels, types) on the shapes the IR declares."""
        cls = ir_op_class(layer.type, layer.version)
        if cls is None:
            return
        sources = [(self.model.layers[lid], idx) for lid, idx in inputs]
        shapes = [src.outputs[idx].dims for src, idx in sources]
        types = [_precision(src.outputs[idx].precision) for src, idx in sources]
        values = [src.value if src.type == "Const" else None for src, _ in sources]
        problem = cls.check_inputs(layer_attrs(cls, layer), shapes, types, values)
        if problem:
            msg = f"{self.model.path}: layer '{layer.name}' ({layer.type}): {problem}"
            raise ModelFormatError(msg)

    @staticmethod
    def _input_spec(param: IRLayer) -> tuple[int, list[str], np.dtype, tuple[int, ...] | None]:
        """(layer id, names it answers to, element type, shape or None for any rank)."""
        names = [param.name, *(param.outputs[0].names if param.outputs else [])]
        shape = parse_attr(param.attrs["shape"], "shape") if "shape" in param.attrs else (
            param.outputs[0].dims if param.outputs else ())
        return param.id, names, dtype_of(param.attrs.get("element_type", "f32")), shape

    def _feed(self, feed: dict[str, np.ndarray]) -> dict[tuple[int, int], np.ndarray]:
        buffers = {}
        for layer_id, names, want, shape in self._inputs:
            key = next((n for n in names if n in feed), None)
            if key is None:
                msg = (f"no value for model input '{names[-1]}' "
                       f"(inputs: {', '.join(self.input_names)})")
                raise UsageError(msg)
            value = np.asarray(feed[key])
            bad_shape = shape is not None and (len(value.shape) != len(shape) or any(
                d >= 0 and d != v for d, v in zip(shape, value.shape)
            ))
            if value.dtype != want or bad_shape:
                msg = (
                    f"input '{key}' must be {want.name} of shape "
                    f"{'any' if shape is None else list(shape)} (-1: any), "
                    f"got {value.dtype.name} of shape {list(value.shape)}"
                )
                raise UsageError(msg)
            buffers[(layer_id, 0)] = value
        return buffers

    @property
    def input_names(self) -> list[str]:
        return [(p.outputs[0].names or [p.name])[0] for p in self.parameters]

    @property
    def output_names(self) -> list[str]:
        return [self.result_names(r)[0] for r in self.results]

    def result_names(self, result: IRLayer) -> list[str]:
        """Tensor names of the Result's source port, then the Result layer's own name."""
        src_layer, idx = self._source(result, 0)
        return [*self.model.layers[src_layer].outputs[idx].names, result.name]

    def run(self, feed: dict[str, np.ndarray],
            times: OpTimes | None = None) -> dict[str, np.ndarray]:
        """Outputs under every tensor name of each Result's source and the Result's name.
        With `times`, each layer's seconds are added under its type."""
        outputs: dict[str, np.ndarray] = {}
        for lid, value in self.execute(self._feed(feed), times).items():
            outputs.update(dict.fromkeys(self._result_names[lid], value))
        return outputs

    def execute(self, buffers: dict[tuple[int, int], np.ndarray],
                times: OpTimes | None = None) -> dict[int, np.ndarray]:
        """Run on the Parameters' values ((layer id, 0) -> value); each Result's by layer id.
        With the native kernels, which run on threads of their own, numpy's BLAS keeps to one."""
        if native.kernels() is None or native.threads() < 2:
            return self._execute(buffers, times)
        with one_blas_thread():
            return self._execute(buffers, times)

    def _execute(self, buffers: dict[tuple[int, int], np.ndarray],
                 times: OpTimes | None) -> dict[int, np.ndarray]:
        slots = list(self._initial)
        for ref, value in buffers.items():
            slots[self.slot[ref]] = value
        outputs: dict[int, np.ndarray] = {}
        for step in self.steps:
            start = time.perf_counter() if times is not None else 0.0
            try:
                outs = step.kernel([slots[n] for n in step.inputs])
            except ExtgenError:
                raise
            except Exception as err:  # an op failing at run time is reported with its layer
                msg = (
                    f"layer '{step.layer.name}' ({step.layer.type}) failed: "
                    f"{type(err).__name__}: {err} (do the IR's attributes and shapes fit the op?)"
                )
                raise ModelFormatError(msg) from err
            if times is not None:
                times.add(step.layer.type, time.perf_counter() - start)
            for n, out in zip(step.outputs, outs):
                slots[n] = out
            for n in step.free_after:
                slots[n] = None
        for lid in self._result_ids:
            outputs[lid] = slots[self.slot[(lid, 0)]]
        self.variables.update(self._assigned)
        self._assigned.clear()
        return outputs


class _Body:
    """A body of a sub-graph op as its definition runs it: Parameter and Result layer ids."""

    def __init__(self, executor: Executor) -> None:
        self.executor = executor

    def run(self, feed: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        return self.executor.execute({(lid, 0): value for lid, value in feed.items()})

    def spec(self, result: int) -> Spec:
        executor = self.executor
        src, idx = executor._source(executor.model.layers[result], 0)
        port = executor.model.layers[src].outputs[idx]
        return Spec(port.dims, _precision(port.precision))
