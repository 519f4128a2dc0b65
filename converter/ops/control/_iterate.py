"""The iteration both Loop and TensorIterator run: feed the body, carry Results back to
Parameters along the back edges, collect the outputs; and its shape inference."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np

from converter.ops.control._body import Body, PortMap, Spec, part, slice_bounds, stack_parts
from converter.ops.control._subgraph_op import merge_shapes

__all__ = ["infer_iterations", "iterate"]

Extra = Callable[[int], dict[Hashable, np.ndarray]]


def iterate(body: Body, port_map: PortMap, inputs: list[np.ndarray], count: int | None,
            extra: Extra, keep_going: Callable[[dict], bool]) -> list[np.ndarray]:
    """Run body up to `count` times (None: until keep_going says stop); `extra(i)` adds the
    special inputs of iteration i. Sliced inputs are cut per iteration, other inputs are fed
    once and then replaced along the back edges."""
    feed: dict[Hashable, np.ndarray] = {}
    sliced = []
    for rule in port_map.external_inputs():
        x = np.asarray(inputs[rule.external])
        if rule.axis is None:
            feed[rule.internal] = x
        else:
            first, parts = slice_bounds(rule, x.shape[rule.axis])
            sliced.append((rule, x, first))
            count = parts if count is None else min(count, parts)
    back = dict(port_map.back_edges)
    initial = {res: feed.get(param) for res, param in back.items()}
    last: dict[Hashable, np.ndarray] = {}
    parts_of: dict[Hashable, list[np.ndarray]] = {r.internal: [] for r in port_map.outputs}
    i = 0
    while count is None or i < count:
        step = {**feed, **extra(i), **{r.internal: part(x, r, f, i) for r, x, f in sliced}}
        last = body.run(step)
        for rule in port_map.outputs:
            if rule.axis is not None:
                parts_of[rule.internal].append(last[rule.internal])
        feed.update({back[res]: last[res] for res in back})
        i += 1
        if not keep_going(last):
            break
    return [
        stack_parts(parts_of[r.internal], r, body) if r.axis is not None
        else last.get(r.internal, initial.get(r.internal))
        for r in port_map.external_outputs()
    ]


def infer_iterations(body: Body, port_map: PortMap, inputs: list[Spec],
                     extra: dict[Hashable, Spec], count: int | None) -> list[Spec]:
    """Output specs: the body inferred on the inputs (a sliced one as one part), again with
    dynamic dims where a carried value changes shape; concatenated outputs span `count`
    iterations (None: dynamic)."""
    feed = dict(extra)
    for rule in port_map.external_inputs():
        spec = inputs[rule.external]
        shape = spec.shape
        if rule.axis is not None and shape is not None:
            axis = rule.axis % len(shape)
            shape = tuple(rule.part_size if a == axis else d for a, d in enumerate(shape))
        feed[rule.internal] = Spec(shape, spec.dtype)
    out = body.infer(feed)
    back = dict(port_map.back_edges)
    changed = {back[r]: Spec(merge_shapes(feed[back[r]].shape, out[r].shape), out[r].dtype)
               for r in back if feed[back[r]].shape != out[r].shape}
    if changed:
        out = body.infer({**feed, **changed})
    specs = []
    for rule in port_map.external_outputs():
        spec = out[rule.internal]
        shape = spec.shape
        if rule.axis is not None and shape is not None:
            axis = rule.axis % len(shape)
            total = -1 if count is None or shape[axis] < 0 else count * shape[axis]
            shape = tuple(total if a == axis else d for a, d in enumerate(shape))
        specs.append(Spec(shape, spec.dtype))
    return specs
