"""MaxPool-14 (values and indices) and AvgPool-14 over strided windows. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/pooling/max-pool-14.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import normalize_axis
from converter.ops.nn._window import resolve_pads, spatial_attrs, windows
from converter.ops.nn.convolution import conv_shape
from converter.ops.op import Op

__all__ = ["AvgPool", "MaxPool"]

_POOL_ATTRS = {"strides": "ints", "pads_begin": "ints", "pads_end": "ints", "kernel": "ints",
               "rounding_type": "str", "auto_pad": "str"}


_TAPS_SUMMED = 64  # kernels up to this many positions sum by a loop over them


def _pool_windows(attrs: dict, x: np.ndarray, fill) -> tuple[np.ndarray, list, ...]:
    """(windows view, out dims, strides, dilations, pads_begin, pads_end) for a pool over x."""
    kernel = list(attrs["kernel"])
    strides, dilations, pb, pe = spatial_attrs(attrs, len(kernel), kernel)
    pb, pe = resolve_pads(attrs.get("auto_pad", "explicit"), x.shape[2:], kernel, strides,
                          dilations, pb, pe)
    out = list(conv_shape(attrs, x.shape, kernel, x.shape[1])[2:])
    return windows(x, kernel, strides, dilations, pb, out, fill), out, strides, dilations, pb, pe


def _running_max(attrs: dict, x: np.ndarray) -> tuple:
    """(max values, windows view, out dims, strides, dilations, pads_begin) of a MaxPool."""
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win, out, strides, dilations, pb, _ = _pool_windows(attrs, x, low)
    taps = list(np.ndindex(*attrs["kernel"]))
    values = win[(Ellipsis, *taps[0])].copy()
    for pos in taps[1:]:  # running maximum over kernel positions (strided views, no copies)
        np.maximum(values, win[(Ellipsis, *pos)], out=values)
    return values, win, out, strides, dilations, pb


class MaxPool(Op):
    op = type = "MaxPool"
    version = "opset14"
    in_ports_count = 1
    out_ports_count = 2
    attr_types = {**_POOL_ATTRS, "dilations": "ints", "index_element_type": "type", "axis": "int"}
    defaults = {"rounding_type": "floor", "auto_pad": "explicit",
                "index_element_type": np.dtype(np.int64), "axis": 0}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        x = shapes[0]
        out = conv_shape(attrs, x, list(attrs["kernel"]), None if x is None else x[1])
        return [out, out]

    @classmethod
    def infer_types(cls, attrs, types):
        return [types[0], np.dtype(attrs["index_element_type"])]

    @classmethod
    def plan(cls, attrs, values, used):
        if len(used) > 1 and used[1]:
            return super().plan(attrs, values, used)
        return lambda inputs: [_running_max(attrs, inputs[0])[0], None]  # no indices

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        values, win, out, strides, dilations, pb = _running_max(attrs, x)
        n = len(out)
        taps = list(np.ndindex(*attrs["kernel"]))
        arg = np.zeros(values.shape, np.int64)
        for t in range(len(taps) - 1, 0, -1):  # backwards, so the first maximum wins
            arg[win[(Ellipsis, *taps[t])] == values] = t
        arg[win[(Ellipsis, *taps[0])] == values] = 0
        offsets = np.unravel_index(arg, attrs["kernel"])
        grid = np.indices(arg.shape, sparse=True)
        coords = list(grid[:2]) + [
            grid[2 + j] * strides[j] - pb[j] + offsets[j] * dilations[j] for j in range(n)
        ]
        axis = normalize_axis(attrs.get("axis", 0), x.ndim)
        index = np.zeros(arg.shape, np.int64)
        for j in range(axis, x.ndim):
            index = index * x.shape[j] + coords[j]
        return [values, index]


def _window_sum(win: np.ndarray, n: int, dtype: np.dtype) -> np.ndarray:
    """Sum over the last n (kernel) axes of a windows view: a running sum over kernel positions
    for small kernels (strided views, no copies), numpy's reduction for big ones."""
    taps = list(np.ndindex(*win.shape[-n:]))
    if len(taps) > _TAPS_SUMMED:
        return win.sum(axis=tuple(range(-n, 0)), dtype=dtype)
    total = win[(Ellipsis, *taps[0])].astype(dtype)
    for pos in taps[1:]:
        np.add(total, win[(Ellipsis, *pos)], out=total)
    return total


class AvgPool(Op):
    """https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/pooling/avg-pool-14.html"""

    op = type = "AvgPool"
    version = "opset14"
    in_ports_count = 1
    attr_types = {**_POOL_ATTRS, "exclude-pad": "bool"}
    defaults = {"rounding_type": "floor", "auto_pad": "explicit", "exclude-pad": False}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        x = shapes[0]
        return [conv_shape(attrs, x, list(attrs["kernel"]), None if x is None else x[1])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        win, out, strides, _, pb, pe = _pool_windows(attrs, x, 0)
        n = len(out)
        total = _window_sum(win, n, np.float64 if x.dtype.kind != "f"
                            else np.promote_types(x.dtype, np.float32))  # float16 sums in float32
        count = np.ones((), np.float64)
        for j, (o, k, s) in enumerate(zip(out, attrs["kernel"], strides)):
            start = np.arange(o) * s - pb[j]
            size = x.shape[2 + j]
            lo, hi = (0, size) if attrs.get("exclude-pad") else (-pb[j], size + pe[j])
            taps = start[:, None] + np.arange(k)[None]
            axis_count = ((taps >= lo) & (taps < hi)).sum(1).astype(np.float64)
            count = np.multiply.outer(count, axis_count)
        return [(total / np.maximum(count, 1)).astype(x.dtype)]
