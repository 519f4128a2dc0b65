"""Einsum-7: Einstein summation over any number of inputs. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/matrix/einsum-7.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN, Shape, broadcast
from converter.ops.op import Op


def _terms(equation: str, count: int) -> tuple[list[str], str]:
    """Input subscripts and the output subscript (implicit mode: '...' then once-used labels)."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != count:
        msg = f"Einsum equation '{equation}' names {len(inputs)} inputs, the node has {count}"
        raise ValueError(msg)
    if not arrow:
        labels = "".join(t.replace("...", "") for t in inputs)
        once = sorted(c for c in set(labels) if labels.count(c) == 1)
        rhs = ("..." if "..." in lhs else "") + "".join(once)
    return inputs, rhs


def _output_shape(inputs: list[str], output: str, shapes: list[Shape]) -> Shape:
    dims: dict[str, int] = {}
    ellipses: list[Shape] = []
    for term, shape in zip(inputs, shapes):
        head, dots, tail = term.partition("...")
        span = len(shape) - len(head) - len(tail) if dots else 0
        ellipses.append(shape[len(head):len(head) + span])
        for label, d in zip(head + tail, shape[:len(head)] + shape[len(head) + span:]):
            known = dims.get(label, DYN)
            dims[label] = d if known < 0 or known == 1 else known
    ellipsis = broadcast(*ellipses) or ()
    head, dots, tail = output.partition("...")
    return tuple(dims[c] for c in head) + (ellipsis if dots else ()) + tuple(dims[c] for c in tail)


class Einsum(Op):
    op = type = "Einsum"
    version = "opset7"
    in_ports_count = None
    attr_types = {"equation": "str"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        inputs, output = _terms(attrs["equation"], len(shapes))
        if any(s is None for s in shapes):
            return [None if "..." in output else (DYN,) * len(output)]
        return [_output_shape(inputs, output, shapes)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        terms, output = _terms(attrs["equation"], len(inputs))
        equation = ",".join(terms) + "->" + output
        # numpy's einsum has no loop for ml_dtypes' types (bfloat16): those sum in f32
        inputs = [x.astype(np.float32) if x.dtype.kind == "V" else x for x in inputs]
        return [np.einsum(equation, *inputs, optimize=len(inputs) > 2)]
