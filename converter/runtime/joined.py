"""Plan-time: convolutions that write straight into the Concat that reads them. A Concat's
output is made, once per run, by the first of its inputs' producers to run, when its shape is
static and all its axes before the joined one are 1 (each input's share is then one contiguous
block); each producer that is a planned convolution read by the Concat alone writes its output
into its share, and the Concat copies in only the inputs that were not. squeezenet's eight
Concats took 0.13 ms of its 3.4."""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from converter.ops.nn.convolution import PlannedConv

if TYPE_CHECKING:
    from converter.ir.reader import IRLayer, IRModel
    from converter.runtime.executor import Kernel, Step

__all__ = ["join_concats"]


class _Joined:
    """One Concat's output for the run under way on this thread, and which shares are in."""

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype, axis: int,
                 sizes: list[int]) -> None:
        self.shape, self.dtype = shape, dtype
        bounds = np.cumsum([0, *sizes]).tolist()
        self.shares = [(slice(None),) * axis + (slice(a, b),) for a, b in zip(bounds, bounds[1:])]
        self.local = threading.local()

    def share(self, index: int, first: bool) -> np.ndarray:
        """Input `index`'s block of the output, made anew by the run's first producer."""
        if first:
            self.local.buffer, self.local.written = np.empty(self.shape, self.dtype), set()
        return self.local.buffer[self.shares[index]]

    def take(self, inputs: list[np.ndarray]) -> np.ndarray | None:
        """The output with the inputs not written in place copied in; None if the run's
        buffer is missing or an input does not fit its share."""
        buffer = getattr(self.local, "buffer", None)
        self.local.buffer = None
        if buffer is None:
            return None
        for index, (x, share) in enumerate(zip(inputs, self.shares)):
            if index not in self.local.written:
                part = buffer[share]
                if x.shape != part.shape:
                    return None
                part[...] = x
        return buffer


class _IntoShare:
    """A planned convolution's step writing into its share of a Concat's output."""

    def __init__(self, conv: PlannedConv, joined: _Joined, index: int, first: bool) -> None:
        self.conv, self.joined, self.index, self.first = conv, joined, index, first

    def __call__(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        share = self.joined.share(self.index, self.first)
        y = self.conv.into(inputs, share)
        if y is share:
            self.joined.local.written.add(self.index)
        return [y]


class _JoinedConcat:
    """The Concat's step: the joined output, or its own kernel where that could not be made."""

    def __init__(self, joined: _Joined, kernel: Kernel) -> None:
        self.joined, self.kernel = joined, kernel

    def __call__(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        out = self.joined.take(inputs)
        return self.kernel(inputs) if out is None else [out]


def _joinable(step: Step) -> tuple[tuple[int, ...], int] | None:
    """A built-in float32 Concat's static output shape and axis where the shares are
    contiguous."""
    if (step.layer.type != "Concat" or not step.builtin or len(step.layer.outputs) != 1
            or step.layer.outputs[0].precision.upper() not in ("FP32", "F32")):
        return None
    dims = step.layer.outputs[0].dims
    axis = int(step.layer.attrs.get("axis", 0))
    axis = axis + len(dims) if axis < 0 else axis
    if (not dims or min(dims) < 0 or not 0 <= axis < len(dims)
            or any(d != 1 for d in dims[:axis])):
        return None
    return tuple(dims), axis


def _size(model: IRModel, layer: IRLayer, position: int, axis: int) -> int:
    """The static size along `axis` of layer's input `position` (-1 if unknown)."""
    source = model.edges.get((layer.id, layer.inputs[position]))
    if source is None:
        return -1
    ports = [p for p in model.layers[source[0]].outputs if p.id == source[1]]
    dims = ports[0].dims if ports else ()
    return dims[axis] if axis < len(dims) else -1


def join_concats(steps: list[Step], model: IRModel) -> list[Step]:
    """steps with each Concat's convolution inputs writing into its output (in place)."""
    reads = Counter(n for step in steps for n in step.inputs)
    producer = {n: (i, step) for i, step in enumerate(steps) for n in step.outputs}
    for step in steps:
        found = _joinable(step)
        if found is None:
            continue
        shape, axis = found
        sources = [producer.get(n) for n in step.inputs]
        convs = [i for i, (n, src) in enumerate(zip(step.inputs, sources))
                 if src is not None and isinstance(src[1].kernel, PlannedConv)
                 and reads[n] == 1 and len(src[1].outputs) == 1]
        sizes = [_size(model, step.layer, i, axis) for i in range(len(step.inputs))]
        if not convs or min(sizes) < 0 or sum(sizes) != shape[axis]:
            continue
        joined = _Joined(shape, np.dtype(np.float32), axis, sizes)
        first = min(convs, key=lambda i: sources[i][0])
        for i in convs:
            src = sources[i][1]
            src.kernel = _IntoShare(src.kernel, joined, i, i == first)
        step.kernel = _JoinedConcat(joined, step.kernel)
    return steps
