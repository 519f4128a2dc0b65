"""AveragePool and LpPool with dilations, which OpenVINO's AvgPool lacks: a convolution by a
kernel of ones over each channel (the sum of the taps), for AveragePool divided by how many
taps fall inside the input (or its pads, with count_include_pad). ceil_mode pads the end with
uncounted zeros so that the last window fits; the shape must be static."""

from __future__ import annotations

import numpy as np

from converter.front.onnx.ops.reduce import _source_info
from converter.front.onnx.translator import OnnxNode
from converter.graph.port import Port

I64 = np.dtype(np.int64)


def _extra_end(attrs: dict, dims: tuple[int, ...], dilations: list[int]) -> list[int]:
    """Zeros to add at each axis' end so that floor division gives ONNX's output size."""
    extra = []
    for size, k, s, d, b, e in zip(dims, attrs["kernel"], attrs["strides"], dilations,
                                   attrs["pads_begin"], attrs["pads_end"]):
        span, padded = (k - 1) * d + 1, size + b + e
        out = (padded - span) // s + 1
        if attrs["rounding_type"] != "floor":
            out = -(-(padded - span) // s) + 1
            out -= (out - 1) * s >= size + b  # the last window starts inside the input or pad
        extra.append(max((out - 1) * s + span - padded, 0))
    return extra


def _conv_attrs(attrs: dict, dilations: list[int]) -> dict:
    nsp = len(attrs["kernel"])
    return {"strides": attrs["strides"], "dilations": dilations, "pads_begin": [0] * nsp,
            "pads_end": [0] * nsp, "auto_pad": "explicit"}


def dilated_window_sum(n: OnnxNode, x: Port, attrs: dict, dilations: list[int]) -> Port:
    """The sum of each window's taps over x (input 0's shape), pads and ceil_mode's end zero."""
    shape = _source_info(n.input(0))[0]
    if attrs["auto_pad"] != "explicit" or shape is None or any(d < 0 for d in shape[2:]):
        n.reject("has dilations, which need explicit pads and a static input shape",
                 "give the model's inputs a shape (--input_shape) and explicit pads")
    nsp = len(attrs["kernel"])
    extra = _extra_end(attrs, tuple(shape[2:]), dilations)
    end = [e + x for e, x in zip(attrs["pads_end"], extra)]
    flat = n.op("Reshape", [x, np.array([-1, 1] + [0] * nsp, I64)], special_zero=True)
    padded = n.op("Pad", [flat, np.array([0, 0, *attrs["pads_begin"]], I64),
                          np.array([0, 0, *end], I64), n.op("ConvertLike", [np.float32(0), x])],
                  pad_mode="constant")
    ones = n.op("ConvertLike", [np.ones([1, 1, *attrs["kernel"]], np.float32), x])
    total = n.op("Convolution", [padded, ones], **_conv_attrs(attrs, dilations))
    channels = n.op("Gather", [n.op("ShapeOf", [x], output_type=I64), np.array([0, 1], I64),
                               np.int64(0)])
    out_dims = n.op("Gather", [n.op("ShapeOf", [total], output_type=I64),
                               np.arange(2, 2 + nsp, dtype=I64), np.int64(0)])
    return n.op("Reshape", [total, n.op("Concat", [channels, out_dims], axis=0)],
                special_zero=False)


def dilated_average_pool(n: OnnxNode, attrs: dict, dilations: list[int],
                         include_pad: bool) -> Port:
    """The window sums divided by the taps inside the input (or its pads, with include_pad)."""
    total = dilated_window_sum(n, n.input(0), attrs, dilations)
    dims = tuple(_source_info(n.input(0))[0][2:])
    inside = np.pad(np.ones(dims, np.float32), list(zip(attrs["pads_begin"], attrs["pads_end"])),
                    constant_values=float(include_pad))
    inside = np.pad(inside, [(0, x) for x in _extra_end(attrs, dims, dilations)])[None, None]
    ones = np.ones([1, 1, *attrs["kernel"]], np.float32)
    count = n.folded("Convolution", [inside, ones], **_conv_attrs(attrs, dilations))
    return n.op("Divide", [total, n.op("ConvertLike", [count, n.input(0)])])
