"""TensorFlow's MaxPoolWithArgmax (SegNet-style unpooling needs its indices) as MaxPool-14 with
indices over the spatial axes, turned into TF's flattened NHWC positions."""

from __future__ import annotations

import numpy as np

from converter.front.tf.attrs import convert_tf_padding_to_str
from converter.front.tf.ops._layout import to_nchw, to_nhwc
from converter.front.tf.translator import TfNode, tf_op
from converter.graph.port import Port

_I64 = np.dtype(np.int64)


def _dims(n: TfNode, x: Port, axes: list[int]) -> Port:
    return n.op("Gather", [n.op("ShapeOf", [x], output_type=_I64), n.const(axes, np.int64),
                           n.const(0, np.int64)], batch_dims=0)


@tf_op("MaxPoolWithArgmax")
def max_pool_with_argmax(n: TfNode):
    x = n.input(0)
    ksize, strides = list(n.attr("ksize")), list(n.attr("strides"))
    pool = n.op_node("MaxPool", [to_nchw(n, x, 4)], kernel=ksize[1:3], strides=strides[1:3],
                     auto_pad=convert_tf_padding_to_str(n.attr("padding", "VALID")),
                     pads_begin=[0, 0], pads_end=[0, 0], dilations=[1, 1],
                     rounding_type="floor", index_element_type=_I64, axis=2)
    # MaxPool's index is y * W + x; TF's is (y * W + x) * C + c, plus b * H * W * C with the batch
    spot = to_nhwc(n, pool.out_port(1), 4)
    channels = _dims(n, x, [3])
    channel = n.op("Range", [n.const(0, np.int64), n.op("Squeeze", [channels]),
                             n.const(1, np.int64)], output_type=_I64)
    index = n.op("Add", [n.op("Multiply", [spot, channels]), channel])
    if n.attr("include_batch_in_index", False):
        image = n.op("ReduceProd", [_dims(n, x, [1, 2, 3]), n.const(0, np.int64)],
                     keep_dims=False)
        batch = n.op("Range", [n.const(0, np.int64), n.op("Squeeze", [_dims(n, x, [0])]),
                               n.const(1, np.int64)], output_type=_I64)
        offset = n.op("Reshape", [n.op("Multiply", [batch, image]),
                                  n.const([-1, 1, 1, 1], np.int64)], special_zero=False)
        index = n.op("Add", [index, offset])
    index = n.op("Convert", [index], destination_type=n.attr("Targmax", _I64))
    return [to_nhwc(n, pool.out_port(0), 4), index]
