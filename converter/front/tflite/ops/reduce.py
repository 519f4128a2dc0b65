"""TensorFlow Lite translators for reductions (axes as input 1, keep_dims in the options) and
arg max / min."""

from __future__ import annotations

import numpy as np

from converter.front.tflite.translator import TfliteNode, tflite_op

_REDUCE = {"MEAN": "ReduceMean", "SUM": "ReduceSum", "REDUCE_MAX": "ReduceMax",
           "REDUCE_MIN": "ReduceMin", "REDUCE_PROD": "ReduceProd",
           "REDUCE_ANY": "ReduceLogicalOr", "REDUCE_ALL": "ReduceLogicalAnd"}


def _reduce(kind: str):
    def translate(n: TfliteNode):
        axes = n.folded("Convert", [n.input(1)], destination_type=np.dtype(np.int64))
        return [n.op(kind, [n.input(0), axes], keep_dims=bool(n.attr("keep_dims", False)))]

    return translate


for _name, _kind in _REDUCE.items():
    tflite_op(_name)(_reduce(_kind))


@tflite_op("ARG_MAX", "ARG_MIN")
def arg_max(n: TfliteNode):
    axis = n.const_value(1)
    if axis is None:
        n.reject("the axis is not a constant", "export the model with a constant axis")
    axis = int(np.asarray(axis).reshape(-1)[0])
    mode = "max" if n.op_type == "ARG_MAX" else "min"
    node = n.op_node("TopK", [n.input(0), n.const(1, np.int64)], axis=axis, mode=mode,
                     sort="none", index_element_type=n.out_tensor().dtype)
    return [n.op("Squeeze", [node.out_port(1), n.const([axis], np.int64)])]
