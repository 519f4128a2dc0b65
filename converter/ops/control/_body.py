"""What the sub-graph ops (If, Loop, TensorIterator) share: the body contract, port maps (which
op input feeds which body Parameter, which body Result makes which op output, sliced or not)
and the slicing arithmetic of TensorIterator/Loop port maps.

A body is anything with `run(feed) -> outputs`, both keyed by the ids its port maps name (body
Parameter/Result node ids in the converter, layer ids in the runtime), `spec(result)` (what it
declares of a Result) and, for conversion, `infer(feed) -> outputs` over `Spec`s. The
converter's bodies wrap a Graph, the shim's an executor; the op definitions never see which.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np

__all__ = ["Body", "PortMap", "PortRule", "Spec", "slice_bounds"]


class Spec(NamedTuple):
    """What inference knows of one tensor: shape (None: any rank), element type, value."""

    shape: tuple[int, ...] | None
    dtype: np.dtype | None
    value: np.ndarray | None = None


class Body(Protocol):
    def run(self, feed: dict[Hashable, np.ndarray]) -> dict[Hashable, np.ndarray]: ...

    def infer(self, feed: dict[Hashable, Spec]) -> dict[Hashable, Spec]: ...

    def spec(self, result: Hashable) -> Spec:
        """What the body declares of a Result (for the empty output of zero iterations)."""
        ...


@dataclass(frozen=True)
class PortRule:
    """One port_map entry. `external` is the op's input (or output) index, -1 for a Loop's
    special ports (`purpose` says which); `axis` set means sliced (inputs) or concatenated
    (outputs) with start/end/stride/part_size as TensorIterator-1 defines them."""

    external: int
    internal: Hashable
    axis: int | None = None
    start: int = 0
    end: int = -1
    stride: int = 1
    part_size: int = 1
    purpose: str | None = None


@dataclass
class PortMap:
    inputs: list[PortRule] = field(default_factory=list)
    outputs: list[PortRule] = field(default_factory=list)
    back_edges: list[tuple[Hashable, Hashable]] = field(default_factory=list)  # (Result, Param)

    def special(self, purpose: str) -> Hashable | None:
        """The body id a Loop special port (current_iteration, execution_condition) names."""
        rule = next((r for r in self.inputs + self.outputs if r.purpose == purpose), None)
        return None if rule is None else rule.internal

    def external_inputs(self) -> list[PortRule]:
        return [r for r in self.inputs if r.purpose is None]

    def external_outputs(self) -> list[PortRule]:
        return sorted((r for r in self.outputs if r.purpose is None), key=lambda r: r.external)


def slice_bounds(rule: PortRule, size: int) -> tuple[int, int]:
    """(first position, number of parts) of a sliced port over a dimension of `size`: negative
    start/end count from the end (-1 is past the last element)."""
    start = rule.start + size + 1 if rule.start < 0 else rule.start
    end = rule.end + size + 1 if rule.end < 0 else rule.end
    return start, abs(end - start) // rule.part_size


def part(x: np.ndarray, rule: PortRule, first: int, i: int) -> np.ndarray:
    """Part i of x along rule.axis: going up from `first`, or down when stride is negative."""
    lo = first + i * rule.part_size if rule.stride > 0 else first - (i + 1) * rule.part_size
    index: list[Any] = [slice(None)] * x.ndim
    index[rule.axis] = slice(lo, lo + rule.part_size)
    return x[tuple(index)]


def stack_parts(parts: list[np.ndarray], rule: PortRule, body: Body) -> np.ndarray:
    """The parts of a concatenated output, in iteration order or reversed (stride < 0); no
    parts make an empty tensor of the Result's declared type and rank."""
    if not parts:
        spec = body.spec(rule.internal)
        rank = len(spec.shape or ())
        axis = rule.axis % rank if rank else 0
        shape = [0 if a == axis or d < 0 else d for a, d in enumerate(spec.shape or (0,))]
        return np.zeros(shape, spec.dtype)
    ordered = parts if rule.stride > 0 else parts[::-1]
    return np.concatenate(ordered, axis=rule.axis)
