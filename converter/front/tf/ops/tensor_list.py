"""TensorList ops as the tensors the lists hold: a list is its items stacked along axis 0.

A list reserved with an unknown element shape has no tensor until something is written: it is
left for a While to take as an output it writes (converter.front.tf.ops.control).
"""

from __future__ import annotations

import numpy as np

from converter.front.tf.bodies import WHILE_OPS
from converter.front.tf.translator import TfNode, tf_op

_I64 = np.dtype(np.int64)


@tf_op("TensorListFromTensor", "TensorListStack")
def as_tensor(n: TfNode):
    return [n.input(0)]


@tf_op("TensorListGetItem")
def get_item(n: TfNode):
    return [n.op("Gather", [n.input(0), n.input(1), n.const(0, _I64)], batch_dims=0)]


@tf_op("TensorListSetItem")
def set_item(n: TfNode):
    index = n.op("Unsqueeze", [n.input(1), n.const([0], _I64)])
    item = n.op("Unsqueeze", [n.input(2), n.const([0], _I64)])
    return [n.op("ScatterUpdate", [n.input(0), index, item, n.const(0, _I64)])]


@tf_op("TensorListLength")
def length(n: TfNode):
    size = n.op("Gather", [n.op("ShapeOf", [n.input(0)], output_type=np.dtype(np.int32)),
                           n.const(0, _I64), n.const(0, _I64)], batch_dims=0)
    return [size]


@tf_op("TensorListElementShape")
def element_shape(n: TfNode):
    first = n.op("Gather", [n.input(0), n.const(0, _I64), n.const(0, _I64)], batch_dims=0)
    return [n.op("ShapeOf", [first], output_type=n.attr("shape_type", np.dtype(np.int32)))]


@tf_op("TensorListReserve")
def reserve(n: TfNode):
    shape, size = n.const_value(0), n.const_value(1)
    if shape is not None and size is not None and shape.ndim == 1 and (shape >= 0).all():
        dims = [int(size.ravel()[0]), *(int(d) for d in shape)]
        return [n.const(np.zeros(dims, n.attr("element_dtype", np.dtype(np.float32))))]
    readers = n.node.out_port(0).get_destinations()
    if all(r.node.soft_get("op") in WHILE_OPS for r in readers):
        return [None]
    n.reject("a TensorList reserved with an unknown element shape is read outside a loop",
             "give the list a full element shape")
