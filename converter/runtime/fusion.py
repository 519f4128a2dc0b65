"""Plan-time fusion for the shim: a layer that reads the fresh output of a built-in
Convolution, MatMul, BatchNorm, Add, ... (alone, or with layers already fused into it) as its
only non-constant input, and is its only reader, runs in place at the end of that step when
its op has an in-place path (`Op.inplace`: bias Add, Multiply, BatchNormInference, ReLU,
Clamp, ...) and keeps the shape and element type. Per-channel affine layers (BatchNorm, Multiply
and Add by per-channel constants) right after a Convolution fold into its filters and a bias,
after a BatchNormInference into its own scale and shift: one pass over the output where each
would take one or two."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from converter.errors import ExtgenError
from converter.ir.attrs import typed_attrs
from converter.ir.reader import IRModel
from converter.ops.native import kernels
from converter.ops.nn.convolution import PlannedConv
from converter.ops.op import ir_op_class

if TYPE_CHECKING:
    from converter.ops.native.library import Kernels
    from converter.runtime.executor import Kernel, Step

__all__ = ["HEADS", "fuse"]

HEADS = frozenset({  # ops whose evaluate returns a new array, never a view of an input
    "Convolution", "GroupConvolution", "MatMul", "BatchNormInference", "MVN", "AvgPool", "Add",
    "Multiply", "Subtract",
})


AFFINE = frozenset({"BatchNormInference", "Multiply", "Add", "Subtract"})  # x * a + b
FOLDS = frozenset({"Convolution", "GroupConvolution"})  # heads whose filters take a scale


def _then(kernel: Kernel, epilogues: list[Callable[[np.ndarray], None]]) -> Kernel:
    """kernel, then epilogues in order over its output in place."""
    def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
        outs = kernel(inputs)
        for epilogue in epilogues:
            epilogue(outs[0])
        return outs
    return run


def _epilogue(step: Step, initial: list[np.ndarray | None]) -> Callable | None:
    """The in-place path of step's op for its constant inputs 1.., or None."""
    cls = ir_op_class(step.layer.type, step.layer.version)
    if cls is None or not step.builtin or len(step.outputs) != 1:
        return None
    values = [None, *(initial[n] for n in step.inputs[1:])]
    if any(v is None for v in values[1:]):
        return None
    try:
        attrs = typed_attrs(cls, step.layer.attrs, f"layer '{step.layer.name}'")
        return cls.inplace(attrs, values)
    except ExtgenError:
        return None


def _same_port(a, b) -> bool:
    return (a.dims == b.dims and all(d >= 0 for d in a.dims)
            and a.precision == b.precision)


def _scalable(head: Step, initial: list[np.ndarray | None]) -> bool:
    """Whether head can take a per-channel scale and shift after it into its own constants:
    float convolution filters, or the statistics of a BatchNormInference-5."""
    consts = [initial[n] for n in head.inputs[1:]]
    if not consts or any(c is None or c.dtype not in (np.float32, np.float64) for c in consts):
        return False
    return head.layer.type in FOLDS or (
        head.layer.type == "BatchNormInference" and head.layer.version == "opset5"
        and _epilogue(head, initial) is not None)


def _per_channel(step: Step, head: Step, initial: list[np.ndarray | None]) -> bool:
    """Whether step maps its input x to x * a + b with a, b constant along all but axis 1,
    after a head that can take a per-channel scale and shift (_scalable)."""
    dims = head.layer.outputs[0].dims
    if step.layer.type not in AFFINE or len(dims) < 3 or not _scalable(head, initial):
        return False
    if step.layer.type == "BatchNormInference":
        return True
    value = initial[step.inputs[1]]
    shape = (1,) * (len(dims) - value.ndim) + value.shape
    return len(shape) == len(dims) and all(d == 1 for i, d in enumerate(shape) if i != 1)


def _compose(affine: list[Callable], dims: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(scale, shift) per channel, shaped [1, C, 1, ...], of the in-place paths `affine`
    applied in order (each x * a + b per channel), in float64: exact to the constants'
    precision."""
    probe = np.zeros((2, dims[1]) + (1,) * (len(dims) - 2))
    probe[1] = 1
    for fn in affine:
        fn(probe)
    return probe[1:] - probe[:1], probe[:1]


def _fold(head: Step, affine: list[Callable],
          initial: list[np.ndarray | None]) -> tuple[Kernel, Callable | None]:
    """head's kernel with the in-place paths `affine` folded in, and the bias add left (None
    if none): a convolution's filters scaled per output channel, or a BatchNormInference's
    own scale and shift composed with them (one multiply and one add per element)."""
    dims = head.layer.outputs[0].dims
    w = initial[head.inputs[1]]
    if head.layer.type == "BatchNormInference":
        scale, shift = _compose([_epilogue(head, initial), *affine], dims)
        return _Affine(scale.astype(w.dtype), shift.astype(w.dtype)), None
    scale, shift = _compose(affine, dims)
    cls = ir_op_class(head.layer.type, head.layer.version)
    attrs = typed_attrs(cls, head.layer.attrs, f"layer '{head.layer.name}'")
    lead = 2 if head.layer.type == "GroupConvolution" else 1  # [G, Og, ...] or [O, ...]
    scaled = w * scale.reshape(w.shape[:lead] + (1,) * (w.ndim - lead))
    kernel = cls.plan(attrs, [None, scaled.astype(w.dtype)], [True])
    bias = shift.astype(w.dtype)
    if not shift.any():
        return kernel, None
    if isinstance(kernel, PlannedConv) and kernel.takes_bias:  # added in the GEMM's pass
        kernel.bias = np.ascontiguousarray(bias.reshape(-1))
        return kernel, None
    return kernel, _BiasAdd(bias)


class _TakesRelu:
    """A fused kernel or epilogue that can run the ReLU after it in its own pass (`relu`, the
    ReLU's in-place path), through the native kernels over float32 where there are any."""

    relu: Callable[[np.ndarray], None] | None = None
    native: Kernels | None = None

    def _native(self, *arrays: np.ndarray) -> Kernels | None:
        return (self.native if self.native is not None and arrays[0].ndim >= 2
                and all(a.dtype == np.float32 and a.flags.c_contiguous for a in arrays)
                else None)

    def _then_relu(self, y: np.ndarray) -> np.ndarray:
        if self.relu is not None:
            self.relu(y)
        return y


class _BiasAdd(_TakesRelu):
    """A folded per-channel bias (shaped [1, C, 1, ...]) added in place."""

    def __init__(self, bias: np.ndarray) -> None:
        self.bias, self.flat = bias, np.ascontiguousarray(bias.reshape(-1))
        self.native = kernels()

    def __call__(self, y: np.ndarray) -> None:
        if native := self._native(y, self.flat):
            native.bias_relu(y, self.flat, self.relu is not None)
        else:
            self._then_relu(np.add(y, self.bias, out=y))


class _Affine(_TakesRelu):
    """A BatchNormInference with per-channel layers folded in: x * scale + shift ([1, C, ...])."""

    def __init__(self, scale: np.ndarray, shift: np.ndarray) -> None:
        self.scale, self.shift = scale, shift
        self.flat = [np.ascontiguousarray(a.reshape(-1)) for a in (scale, shift)]
        self.native = kernels()

    def __call__(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        x = inputs[0]
        if native := self._native(x, *self.flat):
            return [native.affine_relu(x, *self.flat, self.relu is not None)]
        y = np.multiply(x, self.scale)
        return [self._then_relu(np.add(y, self.shift, out=y))]


class _AddRelu(_TakesRelu):
    """An Add (a residual: two tensors of one shape natively) with the ReLU after it."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel, self.native = kernel, kernels()

    def __call__(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        a, b = inputs
        if a.shape == b.shape and (native := self._native(a, b)):
            return [native.add_relu(a, b, self.relu is not None)]
        return [self._then_relu(self.kernel(inputs)[0])]


def fuse(steps: list[Step], model: IRModel, initial: list[np.ndarray | None]) -> list[Step]:
    """steps with each fusable layer folded into the step that produces its input."""
    reads = Counter(n for step in steps for n in step.inputs)
    producer: dict[int, Step] = {}
    kept: list[Step] = []
    tails: dict[int, tuple[list, list]] = {}  # per head: affine paths to fold, epilogues
    for step in steps:
        head = producer.get(step.inputs[0]) if step.inputs else None
        fusable = (
            head is not None and head.builtin and head.layer.type in HEADS
            and len(head.outputs) == 1 and reads[step.inputs[0]] == 1
            and step.layer.outputs and head.layer.outputs
            and _same_port(step.layer.outputs[0], head.layer.outputs[0])
        )
        epilogue = _epilogue(step, initial) if fusable else None
        if epilogue is None:
            kept.append(step)
            for n in step.outputs:
                producer[n] = step
            continue
        affine, epilogues = tails.setdefault(id(head), ([], []))
        if not epilogues and _per_channel(step, head, initial):
            affine.append(epilogue)  # folds into the filters
        else:
            epilogues.append((step.layer.type, epilogue))
        head.outputs = list(step.outputs)
        head.fused.append(step.layer.type)
        producer[step.outputs[0]] = head
    for step in kept:
        if id(step) in tails:
            affine, epilogues = tails[id(step)]
            fns = [fn for _, fn in epilogues]
            relu_first = bool(epilogues) and epilogues[0][0] == "ReLU"
            bias = None
            if affine:
                step.kernel, bias = _fold(step, affine, initial)
            elif step.layer.type == "Add" and relu_first:
                step.kernel = _AddRelu(step.kernel)
            takes = bias if bias is not None else step.kernel
            if relu_first and isinstance(takes, (_TakesRelu, PlannedConv)):
                takes.relu = fns.pop(0)
            if bias is not None:
                fns.insert(0, bias)
            if fns:
                step.kernel = _then(step.kernel, fns)
    return kept
