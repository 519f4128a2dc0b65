"""ATen ops that make tensors: full, zeros/ones (and their _like forms), arange, scalars."""

from __future__ import annotations

import numpy as np

from converter.front.pytorch.ops._common import shape_of
from converter.front.pytorch.translator import TorchNode, aten_op
from converter.graph.port import Port

_FILLS = {"aten::zeros": 0, "aten::ones": 1, "aten::zeros_like": 0, "aten::ones_like": 1,
          "aten::new_zeros": 0, "aten::new_ones": 1}


def _fill(n: TorchNode, value, like=None):
    """A scalar Const of the call's dtype (else like's type, else torch's default)."""
    dtype = n.arg("dtype")
    if isinstance(dtype, np.dtype):
        return n.const(value, dtype)
    if like is not None:
        return n.op("ConvertLike", [n.const(value), like])
    return n.const(value, np.float32 if isinstance(value, float) else np.int64)


@aten_op("aten::full", "aten::zeros", "aten::ones", "aten::new_full", "aten::new_zeros",
         "aten::new_ones")
def full(n: TorchNode):
    value = _FILLS.get(n.op_type, n.arg("fill_value"))
    like = n.tensor(0) if n.op_type.startswith("aten::new_") else None
    if isinstance(value, bool):
        value = np.bool_(value)
    return [n.op("Broadcast", [_fill(n, value, like), n.ints("size")])]


@aten_op("aten::full_like", "aten::zeros_like", "aten::ones_like")
def full_like(n: TorchNode):
    x = n.tensor(0)
    value = _FILLS.get(n.op_type, n.arg("fill_value"))
    return [n.op("Broadcast", [_fill(n, value, x), shape_of(n, x)])]


@aten_op("aten::scalar_tensor")
def scalar_tensor(n: TorchNode):
    return [_fill(n, n.arg(0))]


@aten_op("aten::arange")
def arange(n: TorchNode):
    given = [n.arg(k) for k in ("start", "end", "step") if k in n.names]
    start, end, step = ([0, *given, 1] if len(given) == 1 else
                        [*given, 1] if len(given) == 2 else given)
    dtype = n.arg("dtype")
    if not isinstance(dtype, np.dtype):  # torch's: int64 when every bound is an integer
        kinds = [type(v) if not isinstance(v, Port) else n.element_type(v)
                 for v in (start, end, step)]
        plain = all(k is int or (isinstance(k, np.dtype) and k.kind in "iu") for k in kinds)
        dtype = np.dtype(np.int64 if plain else np.float32)
    bounds = [n.op("Convert", [v], destination_type=dtype) if isinstance(v, Port)
              else n.const(v, dtype) for v in (start, end, step)]
    return [n.op("Range", bounds, output_type=dtype)]


@aten_op("aten::zero")
def zero(n: TorchNode):
    x = n.tensor(0)
    return [n.op("Broadcast", [n.op("ConvertLike", [n.const(0), x]), shape_of(n, x)])]


