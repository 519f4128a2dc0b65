"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1 (transposed convolution). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/convolution/convolution-backprop-data-1.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.nn._window import fit, spatial_attrs
from converter.ops.op import Op

__all__ = ["ConvolutionBackpropData", "GroupConvolutionBackpropData"]


def _pads(attrs: dict, spatial, kernel, out_shape) -> tuple[list[int], list[int], list[int]]:
    """(pads_begin, output spatial dims, output_padding); dims may be DYN."""
    n = len(kernel)
    strides, dilations, pb, pe = spatial_attrs(attrs, n, kernel)
    op = list(attrs.get("output_padding") or [0] * n)
    auto_pad = attrs.get("auto_pad", "explicit")
    full = [DYN if i < 0 or k < 0 else (i - 1) * s + (k - 1) * d + 1
            for i, k, s, d in zip(spatial, kernel, strides, dilations)]
    if out_shape is not None:
        begin = []
        for f, o, p in zip(full, out_shape, op):
            total = max(0, f + p - o) if f >= 0 else 0
            # OpenVINO's backprop split: same_upper puts the larger half first
            begin.append(total - total // 2 if auto_pad == "same_upper" else total // 2)
        if auto_pad not in ("same_upper", "same_lower"):
            begin = pb
        return begin, [int(o) for o in out_shape], op
    if auto_pad == "valid":
        pb, pe = [0] * n, [0] * n
    elif auto_pad in ("same_upper", "same_lower"):
        # output = input * stride; the padding that trims the full result to it
        outs = [DYN if i < 0 else i * s for i, s in zip(spatial, strides)]
        return _pads(attrs, spatial, kernel, outs)
    outs = [DYN if f < 0 else f - b - e + p for f, b, e, p in zip(full, pb, pe, op)]
    return list(pb), outs, op


def grouped_deconv(attrs: dict, x: np.ndarray, w: np.ndarray, out_shape=None) -> np.ndarray:
    """x [N, G*Cg, ...] with w [G, Cg, Og, *k] -> [N, G*Og, *out]."""
    groups, cg, og, *kernel = w.shape
    n, batch, spatial = len(kernel), x.shape[0], x.shape[2:]
    strides, dilations, _, _ = spatial_attrs(attrs, n, kernel)
    begin, outs, _ = _pads(attrs, spatial, kernel, out_shape)
    xs = x.reshape(batch, groups, cg, -1).transpose(1, 0, 3, 2)  # [G, N, P, Cg]
    cols = np.matmul(xs, w.reshape(groups, 1, cg, -1))  # [G, N, P, Og*K]
    cols = cols.reshape(groups, batch, *spatial, og, *kernel)
    full = [(i - 1) * s + (k - 1) * d + 1
            for i, k, s, d in zip(spatial, kernel, strides, dilations)]
    y = np.zeros((groups, batch, *full, og), dtype=np.result_type(x, w))
    for pos in np.ndindex(*kernel):
        dst = tuple(slice(p * d, p * d + (i - 1) * s + 1, s)
                    for p, d, i, s in zip(pos, dilations, spatial, strides))
        y[(slice(None), slice(None), *dst)] += cols[(Ellipsis, *pos)]
    y = np.moveaxis(y, -1, 2).swapaxes(0, 1).reshape(batch, groups * og, *full)
    return fit(y, 2, begin, outs)


def _out_shape(attrs, shapes, values, kernel, out_ch):
    x = shapes[0]
    if x is None:
        return [None]
    n = len(x) - 2
    if len(shapes) > 2:
        out = values[2]
        dims = tuple(int(v) for v in out) if out is not None else (DYN,) * n
        return [(x[0], out_ch) + dims]
    if kernel is None or any(k < 0 for k in kernel):
        return [(x[0], out_ch) + (DYN,) * n]
    return [(x[0], out_ch) + tuple(_pads(attrs, x[2:], kernel, None)[1])]


class ConvolutionBackpropData(Op):
    op = type = "ConvolutionBackpropData"
    version = "opset1"
    in_ports_count = 3
    attr_types = {"strides": "ints", "dilations": "ints", "pads_begin": "ints", "pads_end": "ints",
                  "auto_pad": "str", "output_padding": "ints"}
    defaults = {"auto_pad": "explicit"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        w = shapes[1]
        kernel = None if w is None else list(w[2:])
        return _out_shape(attrs, shapes, values, kernel, DYN if w is None else w[1])

    @classmethod
    def evaluate(cls, attrs, inputs):
        out = inputs[2] if len(inputs) > 2 else None
        return [grouped_deconv(attrs, inputs[0], inputs[1][None], out)]


class GroupConvolutionBackpropData(Op):
    """Filters [GROUPS, C_IN, C_OUT, *k]. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/convolution/group-convolution-backprop-data-1.html"""

    op = type = "GroupConvolutionBackpropData"
    version = "opset1"
    in_ports_count = 3
    attr_types = dict(ConvolutionBackpropData.attr_types)
    defaults = {"auto_pad": "explicit"}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        w = shapes[1]
        kernel = None if w is None else list(w[3:])
        out_ch = DYN if w is None or min(w[0], w[2]) < 0 else w[0] * w[2]
        return _out_shape(attrs, shapes, values, kernel, out_ch)

    @classmethod
    def evaluate(cls, attrs, inputs):
        out = inputs[2] if len(inputs) > 2 else None
        return [grouped_deconv(attrs, inputs[0], inputs[1], out)]
