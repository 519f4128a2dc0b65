"""TorchScript's scalar ops: sizes read at run time and the int arithmetic on them (an int
is an i64 scalar tensor here), and the conversions between scalars and tensors."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.ops._common import I64, axis, operands, rank_of, shape_of
from converter.front.pytorch.translator import TorchNode, aten_op


@aten_op("aten::size", "aten::sym_size")
def size(n: TorchNode):
    x = n.tensor(0)
    if n.arg("dim") is None:
        return [shape_of(n, x)]
    return [n.op("Gather", [shape_of(n, x), axis(n, x, int(n.value("dim"))),
                            n.const(0, np.int64)])]


@aten_op("aten::dim")
def dim(n: TorchNode):
    return [rank_of(n, n.tensor(0))]


@aten_op("aten::Int", "prim::NumToTensor", "aten::ScalarImplicit", "aten::Float",
         "aten::Bool")
def scalar(n: TorchNode):
    kinds = {"aten::Int": I64, "aten::Float": np.dtype(np.float32),
             "aten::Bool": np.dtype(np.bool_)}
    x = n.tensor(0)
    return [x if n.op_type not in kinds else n.op("Convert", [x],
                                                  destination_type=kinds[n.op_type])]


@aten_op("aten::floordiv", "aten::floor_divide")
def floordiv(n: TorchNode):
    a, b = operands(n)
    return [n.op("Floor", [n.op("Divide", [a, b], m_pythondiv=True)])]
