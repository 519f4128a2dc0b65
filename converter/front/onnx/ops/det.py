"""ONNX Det as the Leibniz sum over permutations (OpenVINO has no determinant): the matrices'
entries gathered per permutation, multiplied along it, signed and summed; for matrices up to
6 x 6 of a size known at conversion."""

from __future__ import annotations

import itertools

import numpy as np

from converter.front.onnx.translator import OnnxNode, onnx_op
from converter.graph.port import Port

I64 = np.dtype(np.int64)
_MAX_SIZE = 6


def _matrix_size(n: OnnxNode) -> int | None:
    node = n.input(0).node
    shape = (np.shape(node.value) if node.soft_get("op") == "Const"
             else node.soft_get("shape", None) if node.soft_get("op") == "Parameter" else None)
    return None if shape is None or len(shape) < 2 or shape[-1] < 0 else int(shape[-1])


def _sign(perm: tuple[int, ...]) -> int:
    inversions = sum(a > b for i, a in enumerate(perm) for b in perm[i + 1:])
    return -1 if inversions % 2 else 1


@onnx_op("Det")
def det(n: OnnxNode) -> list[Port]:
    size = _matrix_size(n)
    if size is None or size > _MAX_SIZE:
        n.reject(f"needs square matrices of a size known at conversion, at most {_MAX_SIZE}",
                 "give the input a static shape")
    perms = list(itertools.permutations(range(size)))
    entries = np.array([[i * size + p[i] for i in range(size)] for p in perms], I64)
    signs = np.array([_sign(p) for p in perms], np.float32)
    x = n.input(0)
    flat = n.op("Reshape", [x, n.op("Concat", [
        n.op("Slice", [n.op("ShapeOf", [x], output_type=I64), np.array([0], I64),
                       np.array([-2], I64), np.array([1], I64)]),
        np.array([size * size], I64)], axis=0)], special_zero=False)
    terms = n.op("ReduceProd", [n.op("Gather", [flat, entries, np.int64(-1)]), np.int64(-1)],
                 keep_dims=False)
    # a MatMul with the signs: OpenVINO's CPU plugin fused Multiply + ReduceSum after this
    # ReduceProd wrongly (10 for det [[1, 2], [3, 4]])
    return [n.op("MatMul", [terms, n.op("ConvertLike", [signs, terms])])]
