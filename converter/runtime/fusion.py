"""Plan-time fusion for the shim: a layer that reads the fresh output of a built-in
Convolution, MatMul, BatchNorm, Add, ... (alone, or with layers already fused into it) as its
only non-constant input, and is its only reader, runs in place at the end of that step when
its op has an in-place path (`Op.inplace`: bias Add, Multiply, BatchNormInference, ReLU,
Clamp, ...) and keeps the shape and element type."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from converter.errors import ExtgenError
from converter.ir.attrs import typed_attrs
from converter.ir.reader import IRModel
from converter.ops.op import ir_op_class

if TYPE_CHECKING:
    from converter.runtime.executor import Kernel, Step

__all__ = ["HEADS", "fuse"]

HEADS = frozenset({  # ops whose evaluate returns a new array, never a view of an input
    "Convolution", "GroupConvolution", "MatMul", "BatchNormInference", "MVN", "AvgPool", "Add",
    "Multiply", "Subtract",
})


def _then(kernel: Kernel, epilogue: Callable[[np.ndarray], None]) -> Kernel:
    def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
        outs = kernel(inputs)
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


def fuse(steps: list[Step], model: IRModel, initial: list[np.ndarray | None]) -> list[Step]:
    """steps with each fusable layer folded into the step that produces its input."""
    reads = Counter(n for step in steps for n in step.inputs)
    producer: dict[int, Step] = {}
    kept: list[Step] = []
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
        head.kernel = _then(head.kernel, epilogue)
        head.outputs = list(step.outputs)
        head.fused.append(step.layer.type)
        producer[step.outputs[0]] = head
    return kept
