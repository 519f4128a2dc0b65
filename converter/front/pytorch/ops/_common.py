"""What several ATen translator modules share: binary operands, axes, run-time shapes."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.translator import TorchNode
from converter.graph.port import Port

I64 = np.dtype(np.int64)


def operands(n: TorchNode, a: str | int = 0, b: str | int = 1) -> tuple[Port, Port]:
    """Two tensor arguments; a Python number among them, or a 0-d constant beside a tensor
    (TorchScript's wrapped numbers), takes the other's element type, as torch promotes."""
    if n.is_tensor(a) or not n.is_tensor(b):
        x = n.tensor(a)
        y = n.tensor(b, like=x)
        if _scalar_const(y) and not _scalar_const(x):
            y = n.op("ConvertLike", [y, x])
        elif _scalar_const(x) and not _scalar_const(y):
            x = n.op("ConvertLike", [x, y])
        return x, y
    y = n.tensor(b)
    return n.tensor(a, like=y), y


def _scalar_const(port: Port) -> bool:
    return port.node.soft_get("op") == "Const" and np.ndim(port.node.value) == 0


def shape_of(n: TorchNode, x: Port) -> Port:
    return n.op("ShapeOf", [x], output_type=I64)


def rank_of(n: TorchNode, x: Port) -> Port:
    """x's rank as an i64 scalar."""
    return n.op("Squeeze", [shape_of(n, shape_of(n, x)), n.const([0], np.int64)])


def axis(n: TorchNode, x: Port, dim: int) -> Port:
    """dim as a non-negative i64 scalar (a negative one counted from x's rank)."""
    if dim >= 0:
        return n.const(dim, np.int64)
    return n.op("Add", [rank_of(n, x), n.const(dim, np.int64)])


def dims_slice(n: TorchNode, x: Port, start: int, stop: int | None) -> Port:
    """x's dims [start:stop] as an i64 tensor (stop None: to the end)."""
    end = np.iinfo(np.int64).max if stop is None else stop
    return n.op("Slice", [shape_of(n, x), n.const([start], np.int64), n.const([end], np.int64),
                          n.const([1], np.int64)])


def fill_to_rank(n: TorchNode, x: Port, value: int, count: int) -> Port:
    """`value` repeated (rank of x - count) times, as a 1-D i64 tensor."""
    missing = n.op("Subtract", [rank_of(n, x), n.const(count, np.int64)])
    return n.op("Broadcast", [n.const(value, np.int64),
                              n.op("Reshape", [missing, n.const([1], np.int64)])])


def per_channel_shape(n: TorchNode, x: Port) -> Port:
    """[1, -1, 1, ...] of x's rank: a per-channel vector's shape to broadcast over x."""
    return n.op("Concat", [n.const([1, -1], np.int64), fill_to_rank(n, x, 1, 2)], axis=0)
