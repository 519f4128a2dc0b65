"""MaxPool-14 (values and indices) and AvgPool-14 over strided windows. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/pooling/max-pool-14.html"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from converter.graph.shape import normalize_axis
from converter.ops.native import kernels
from converter.ops.nn._window import fit, resolve_pads, scratch, spatial_attrs, windows
from converter.ops.nn.convolution import conv_shape
from converter.ops.op import Op

if TYPE_CHECKING:
    from converter.ops.native.library import Kernels

__all__ = ["AvgPool", "MaxPool"]

_POOL_ATTRS = {"strides": "ints", "pads_begin": "ints", "pads_end": "ints", "kernel": "ints",
               "rounding_type": "str", "auto_pad": "str"}


_SEPARABLE = 16  # windows up to this long per axis reduce one axis at a time


def _geometry(attrs: dict, x: np.ndarray) -> tuple[list[int], ...]:
    """(kernel, strides, dilations, pads_begin, pads_end, out dims) of a pool over x."""
    kernel = list(attrs["kernel"])
    strides, dilations, pb, pe = spatial_attrs(attrs, len(kernel), kernel)
    pb, pe = resolve_pads(attrs.get("auto_pad", "explicit"), x.shape[2:], kernel, strides,
                          dilations, pb, pe)
    out = list(conv_shape(attrs, x.shape, kernel, x.shape[1])[2:])
    return kernel, strides, dilations, pb, pe, out


def _separable(x: np.ndarray, geometry: tuple, fill, reduce: np.ufunc,
               dtype: np.dtype) -> np.ndarray:
    """reduce (np.maximum, np.add) over each window in dtype."""
    result = np.empty((*x.shape[:2], *geometry[-1]), dtype)
    _axis_by_axis(x, geometry, fill, reduce, result)
    return result


def _axis_by_axis(x: np.ndarray, geometry: tuple, fill, reduce: np.ufunc,
                  result: np.ndarray) -> None:
    """result = reduce over each window in result's type, one spatial axis at a time from
    the first, on the data padded once: k - 1 calls per axis over long runs of memory, where a
    loop over all window positions takes k1 * k2 * ... calls over rows as short as the output's
    last axis. An unstrided axis (and the last, strided at the end) reduces the whole array as
    one run: the positions past the axis's windows, reduced across rows, are cropped at the end."""
    dtype = result.dtype
    kernel, strides, dilations, pb, _, out = geometry
    need = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out, strides, kernel, dilations)]
    if any(pb) or any(n > i for n, i in zip(need, x.shape[2:])):
        data = fit(x, 2, [-p for p in pb], need, fill, slot="pool.data")
    else:
        data = np.ascontiguousarray(x)  # wider than the windows need: the rest is cropped
    slots, crop = ["pool.0", "pool.1"], [slice(None)] * 2
    for ax in range(2, x.ndim):
        k, s, d, o = (v[ax - 2] for v in (kernel, strides, dilations, out))
        run = s == 1 or ax == x.ndim - 1
        crop.append(slice(0, (o - 1) * s + 1, s) if run else slice(0, o))
        if k == 1 and run:
            continue
        if run:  # tap i starts i * d rows of this axis further on
            total = scratch(slots[0], data.shape, dtype)
            flat, inner = data.reshape(-1), math.prod(data.shape[ax + 1:])
            valid = flat.size - (k - 1) * d * inner
            _reduce_into(total.reshape(-1)[:valid],
                         [flat[i * d * inner:i * d * inner + valid] for i in range(k)],
                         reduce, dtype)
            total.reshape(-1)[valid:] = fill
        else:  # rows as long as all later axes together
            total = scratch(slots[0], (*data.shape[:ax], o, *data.shape[ax + 1:]), dtype)
            lead = (slice(None),) * ax
            _reduce_into(total, [data[(*lead, slice(i * d, i * d + (o - 1) * s + 1, s))]
                                 for i in range(k)], reduce, dtype)
        slots.reverse()
        data = total
    np.copyto(result, data[tuple(crop)])


def _reduce_into(total: np.ndarray, taps: list[np.ndarray], reduce: np.ufunc, dtype) -> None:
    if len(taps) == 1:
        np.copyto(total, taps[0])
        return
    reduce(taps[0], taps[1], out=total, dtype=dtype)
    for tap in taps[2:]:
        reduce(total, tap, out=total)


def _max_values(x: np.ndarray, geometry: tuple) -> np.ndarray:
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    if max(geometry[0]) <= _SEPARABLE:
        return _separable(x, geometry, low, np.maximum, x.dtype)
    kernel, strides, dilations, pb, _, out = geometry
    win = windows(x, kernel, strides, dilations, pb, out, low)
    return win.max(axis=tuple(range(-len(kernel), 0)))


class MaxPool(Op):
    op = type = "MaxPool"
    version = "opset14"
    older_versions = ("opset8",)
    in_ports_count = 1
    out_ports_count = 2
    attr_types = {**_POOL_ATTRS, "dilations": "ints", "index_element_type": "type", "axis": "int"}
    defaults = {"rounding_type": "floor", "auto_pad": "explicit",
                "index_element_type": np.dtype(np.int64), "axis": 0}

    @classmethod
    def version_for(cls, attrs):
        return cls.version if attrs.get("rounding_type") == "ceil_torch" else "opset8"

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
        geometries: dict[tuple, tuple] = {}

        native = kernels()

        def run(inputs: list[np.ndarray]) -> list[np.ndarray]:  # no indices
            x = inputs[0]
            geometry = geometries.get(x.shape)
            if geometry is None:
                geometry = geometries[x.shape] = _geometry(attrs, x)
            if native is not None and _native_fits(x, geometry):
                return [_native_pool(native, x, geometry, True), None]
            return [_max_values(x, geometry), None]
        return run

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        geometry = _geometry(attrs, x)
        values = _max_values(x, geometry)
        kernel, strides, dilations, pb, _, out = geometry
        low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        win = windows(x, kernel, strides, dilations, pb, out, low)
        n = len(out)
        taps = list(np.ndindex(*kernel))
        arg = np.zeros(values.shape, np.int64)
        for t in range(len(taps) - 1, 0, -1):  # backwards, so the first maximum wins
            arg[win[(Ellipsis, *taps[t])] == values] = t
        arg[win[(Ellipsis, *taps[0])] == values] = 0
        offsets = np.unravel_index(arg, kernel)
        grid = np.indices(arg.shape, sparse=True)
        coords = list(grid[:2]) + [
            grid[2 + j] * strides[j] - pb[j] + offsets[j] * dilations[j] for j in range(n)
        ]
        axis = normalize_axis(attrs.get("axis", 0), x.ndim)
        index = np.zeros(arg.shape, np.int64)
        for j in range(axis, x.ndim):
            index = index * x.shape[j] + coords[j]
        return [values, index]


def _native_fits(x: np.ndarray, geometry: tuple) -> bool:
    """Whether the native kernel takes this pool: float32 [N, C, H, W], unit dilations, windows
    the axis-by-axis path takes (its sums, bit for bit), each begin pad inside the first."""
    kernel, _, dilations, pb, _, out = geometry
    return (x.dtype == np.float32 and x.ndim == 4 and all(d == 1 for d in dilations)
            and max(kernel) <= _SEPARABLE and all(0 <= p < k for p, k in zip(pb, kernel))
            and min(out) >= 1 and x.size > 0)


def _native_pool(native: Kernels, x: np.ndarray, geometry: tuple, is_max: bool) -> np.ndarray:
    kernel, strides, _, pb, _, out = geometry
    return native.pool2d(np.ascontiguousarray(x), kernel, strides, pb, out, is_max)


def _window_sum(x: np.ndarray, geometry: tuple, dtype: np.dtype) -> np.ndarray:
    """Sum over each window in dtype: axis by axis for short windows, else numpy's sum."""
    if max(geometry[0]) <= _SEPARABLE:
        return _separable(x, geometry, 0, np.add, dtype)
    kernel, strides, dilations, pb, _, out = geometry
    win = windows(x, kernel, strides, dilations, pb, out)
    return win.sum(axis=tuple(range(-len(kernel), 0)), dtype=dtype)


class AvgPool(Op):
    """https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/pooling/avg-pool-14.html"""

    op = type = "AvgPool"
    version = "opset14"
    older_versions = ("opset1",)
    in_ports_count = 1
    attr_types = {**_POOL_ATTRS, "exclude-pad": "bool"}
    defaults = {"rounding_type": "floor", "auto_pad": "explicit", "exclude-pad": False}

    @classmethod
    def version_for(cls, attrs):
        return cls.version if attrs.get("rounding_type") == "ceil_torch" else "opset1"

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        x = shapes[0]
        return [conv_shape(attrs, x, list(attrs["kernel"]), None if x is None else x[1])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        return [_average(inputs[0], _divisor(attrs, inputs[0]))]

    @classmethod
    def plan(cls, attrs, values, used):
        divisors: dict[tuple, tuple] = {}  # geometry and counts per data shape and type

        native = kernels()

        def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
            x = inputs[0]
            key = (x.shape, x.dtype)
            if key not in divisors:
                divisors[key] = _divisor(attrs, x)
            geometry, _, count = divisors[key]
            if native is not None and _native_fits(x, geometry):
                total = _native_pool(native, x, geometry, False)
                total /= count
                return [total]
            return [_average(x, divisors[key])]
        return run


def _divisor(attrs: dict, x: np.ndarray) -> tuple:
    """(geometry, sum type, taps counted per output position: one number where all agree)."""
    geometry = _geometry(attrs, x)
    kernel, strides, _, pb, pe, out = geometry
    dtype = np.float64 if x.dtype.kind != "f" else np.promote_types(x.dtype, np.float32)
    count = np.ones((), np.float64)
    for j, (o, k, s) in enumerate(zip(out, kernel, strides)):
        start = np.arange(o) * s - pb[j]
        size = x.shape[2 + j]
        lo, hi = (0, size) if attrs.get("exclude-pad") else (-pb[j], size + pe[j])
        taps = start[:, None] + np.arange(k)[None]
        axis_count = ((taps >= lo) & (taps < hi)).sum(1).astype(np.float64)
        count = np.multiply.outer(count, axis_count)
    count = np.maximum(count, 1).astype(dtype)  # whole numbers: exact in dtype
    return geometry, dtype, count.flat[0] if np.all(count == count.flat[0]) else count


def _average(x: np.ndarray, divisor: tuple) -> np.ndarray:
    geometry, dtype, count = divisor
    total = _window_sum(x, geometry, dtype)  # float16 sums in float32
    total /= count
    return total.astype(x.dtype, copy=False)
