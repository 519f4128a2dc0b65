"""ATen reductions: mean, sum, max/min, any/all, cumulative sums."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.ops._common import I64, rank_of
from converter.front.pytorch.translator import TorchNode, aten_op

_REDUCE = {"aten::mean": "ReduceMean", "aten::sum": "ReduceSum", "aten::amax": "ReduceMax",
           "aten::amin": "ReduceMin", "aten::any": "ReduceLogicalOr",
           "aten::all": "ReduceLogicalAnd", "aten::prod": "ReduceProd"}


@aten_op(*_REDUCE)
def reduce(n: TorchNode):
    kind = _REDUCE[n.op_type]
    x = n.tensor(0)
    dtype = n.arg("dtype")
    if isinstance(dtype, np.dtype):
        x = n.op("Convert", [x], destination_type=dtype)
    if kind.startswith("ReduceLogical"):
        x = n.op("Convert", [x], destination_type=np.dtype(np.bool_))
    dim = n.arg("dim")
    if dim is None or dim == []:
        axes = n.op("Range", [n.const(0, np.int64), rank_of(n, x), n.const(1, np.int64)],
                    output_type=I64)
    else:
        axes = n.ints("dim")
    return [n.op(kind, [x, axes], keep_dims=bool(n.value("keepdim", False)))]


@aten_op("aten::cumsum")
def cumsum(n: TorchNode):
    return [n.op("CumSum", [n.tensor(0), n.const(int(n.value("dim")), np.int64)])]
