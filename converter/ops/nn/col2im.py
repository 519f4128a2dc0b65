"""Col2Im-15: column blocks [N, C * kH * kW, L] summed back into an image [N, C, H, W] (batch
optional), the inverse of extracting sliding blocks. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/movement/col2im-15.html"""

from __future__ import annotations

import itertools

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["Col2Im"]


class Col2Im(Op):
    op = type = "Col2Im"
    version = "opset15"
    in_ports_count = 3
    attr_types = {"strides": "ints", "dilations": "ints", "pads_begin": "ints",
                  "pads_end": "ints"}
    defaults = {"strides": [1, 1], "dilations": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0]}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        data, size, kernel = shapes[0], values[1], values[2]
        if data is None:
            return [None]
        batch = data[:-2]
        blocks = data[-2]
        channels = DYN
        if kernel is not None and blocks != DYN:
            channels = blocks // int(np.prod(kernel))
        spatial = (DYN, DYN) if size is None else tuple(int(d) for d in size)
        return [(*batch, channels, *spatial)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        data, size, kernel = inputs[0], [int(d) for d in inputs[1]], [int(d) for d in inputs[2]]
        batched = data if data.ndim == 3 else data[None]
        strides, dilations = attrs["strides"], attrs["dilations"]
        begin, end = attrs["pads_begin"], attrs["pads_end"]
        padded = [s + b + e for s, b, e in zip(size, begin, end)]
        # blocks along each axis, in the order the columns enumerate them
        counts = [(p - d * (k - 1) - 1) // s + 1
                  for p, d, k, s in zip(padded, dilations, kernel, strides)]
        n = batched.shape[0]
        channels = batched.shape[1] // int(np.prod(kernel))
        columns = batched.reshape(n, channels, *kernel, *counts)
        image = np.zeros((n, channels, *padded), data.dtype)
        for offset in itertools.product(*(range(k) for k in kernel)):
            window = tuple(slice(o * d, o * d + (c - 1) * s + 1, s)
                           for o, d, c, s in zip(offset, dilations, counts, strides))
            image[(slice(None), slice(None), *window)] += columns[(slice(None), slice(None),
                                                                   *offset)]
        crop = tuple(slice(b, b + s) for b, s in zip(begin, size))
        out = image[(slice(None), slice(None), *crop)]
        return [out if data.ndim == 3 else out[0]]
