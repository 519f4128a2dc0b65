"""Convolution-1 and GroupConvolution-1 (im2col + batched matmul). https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/convolution/convolution-1.html"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from converter.graph.shape import DYN
from converter.ops.native import kernels
from converter.ops.nn._banded import BandedDepthwise
from converter.ops.nn._depthwise import NativeDepthwise, depthwise2d
from converter.ops.nn._native_conv import NativeConv
from converter.ops.nn._tap_sums import tap_matrix, tap_sums, tap_sums_fit, tap_sums_pay
from converter.ops.nn._window import out_dim, resolve_pads, scratch, spatial_attrs, tap_views
from converter.ops.op import Op

if TYPE_CHECKING:
    from converter.ops.native.library import Kernels

__all__ = ["Convolution", "GroupConvolution", "conv_shape"]

_DEPTHWISE_BLOCK = 1 << 15  # output elements per channel block of a depthwise convolution
_WIDE = (np.float32, np.float64)  # depthwise sums in the data's type (float16: by GEMM's)
_CONV_ATTRS = {"strides": "ints", "dilations": "ints", "pads_begin": "ints", "pads_end": "ints",
               "auto_pad": "str"}


def conv_shape(attrs: dict, x: tuple | None, kernel: list[int] | None, out_ch: int) -> tuple | None:
    """[N, out_ch, *spatial] of a forward window sweep (shared with pooling)."""
    if x is None:
        return None
    n = len(x) - 2
    if kernel is None or any(k < 0 for k in kernel):
        return (x[0], out_ch) + (DYN,) * n
    strides, dilations, pb, pe = spatial_attrs(attrs, n, kernel)
    auto_pad = attrs.get("auto_pad", "explicit")
    if auto_pad in ("same_upper", "same_lower"):
        return (x[0], out_ch) + tuple(DYN if i < 0 else -(-i // s) for i, s in zip(x[2:], strides))
    pb, pe = resolve_pads(auto_pad, x[2:], kernel, strides, dilations, pb, pe)
    rounding = attrs.get("rounding_type", "floor")
    return (x[0], out_ch) + tuple(
        out_dim(i, k, s, d, b, e, rounding)
        for i, k, s, d, b, e in zip(x[2:], kernel, strides, dilations, pb, pe)
    )


def _geometry(attrs: dict, shape: tuple, kernel: list[int]) -> tuple[list[int], ...]:
    """(strides, dilations, pads_begin, out dims) of a convolution over data of this shape."""
    strides, dilations, pb, pe = spatial_attrs(attrs, len(kernel), kernel)
    pb, _ = resolve_pads(attrs.get("auto_pad", "explicit"), shape[2:], kernel, strides,
                         dilations, pb, pe)
    return strides, dilations, pb, list(conv_shape(attrs, shape, kernel, 0)[2:])


def _conv(x: np.ndarray, w: np.ndarray, kernel: list[int], geometry: tuple,
          by_tap: np.ndarray | None = None,
          planned_dw: BandedDepthwise | NativeDepthwise | None = None) -> np.ndarray:
    """x [N, G*Cg, ...] convolved with w [G, Og, Cg*K] -> [N, G*Og, *out]: columns
    [N, G, Cg*K, P] (one strided copy per kernel position; none for a 1x1 kernel), then one
    batched matmul that lands in NCHW order; a depthwise w (Og = Cg = 1) instead sums the
    data at each kernel position weighted per channel, with no columns at all, and a
    unit-stride layer narrowing the channels sums its per-position products (by_tap: w as
    tap_matrix, when the caller made it once), and a depthwise one may run the native kernel
    or, with a wide kernel, banded GEMMs (`planned_dw`, made by the caller for w). PlannedConv
    runs float32 2-D filters through the native GEMM instead, where there is one."""
    strides, dilations, pb, out = geometry
    n, groups, og = len(kernel), w.shape[0], w.shape[1]
    taps = math.prod(kernel)
    cg = w.shape[2] // taps
    if (groups == 1 and tap_sums_fit(og, cg, strides, taps)
            and tap_sums_pay(og, cg, kernel, dilations, out)):
        matrix = tap_matrix(w[0], kernel) if by_tap is None else by_tap
        return tap_sums(x, matrix, kernel, dilations, pb, out)
    depthwise = og == 1 and w.shape[2] == taps and groups > 1
    if depthwise and n == 2 and taps > 1 and x.dtype in _WIDE:
        if planned_dw is not None and x.dtype == planned_dw.w.dtype and planned_dw.pays(out):
            return planned_dw(x, pb, out)
        return depthwise2d(x, w.reshape(groups, taps), kernel, strides, dilations, pb, out)
    batch = x.shape[0]
    views = tap_views(x, kernel, strides, dilations, pb, out, slot="conv.data")
    if taps == 1:
        if depthwise:  # 1x1: a per-channel scale
            return views[0] * w.reshape(groups, *([1] * n))
        cols = np.ascontiguousarray(views[0])
    elif depthwise and x.dtype in _WIDE:
        return _depthwise(views, w.reshape(groups, taps))
    else:
        cols = scratch("conv.columns", (batch, x.shape[1], taps, *out), x.dtype)
        for t, view in enumerate(views):
            cols[:, :, t] = view
    return _gemm(w, cols, out)


def _gemm(w: np.ndarray, cols: np.ndarray, out: list[int]) -> np.ndarray:
    """w [G, Og, Cg*K] times columns [N, G*Cg, K, *out] -> [N, G*Og, *out]."""
    batch, groups, positions = cols.shape[0], w.shape[0], math.prod(out)
    cols = cols.reshape(batch, groups, -1, positions)
    res = np.matmul(w, cols)  # [N, G, Og, P]
    return res.reshape(batch, groups * w.shape[1], *out)


def _depthwise(views: list[np.ndarray], w: np.ndarray) -> np.ndarray:
    """sum over kernel positions t of views[t] * w[:, t] per channel (w [C, K]), a block of
    channels at a time so that each block's sums stay in cache."""
    channels, first = w.shape[0], views[0]
    w = w.reshape(channels, w.shape[1], *([1] * (first.ndim - 2)))
    out = np.empty(first.shape, dtype=np.result_type(first, w))
    block = max(1, _DEPTHWISE_BLOCK // math.prod(out.shape[2:]))
    step = np.empty((out.shape[0], min(block, channels), *out.shape[2:]), dtype=out.dtype)
    for c in range(0, channels, block):
        part, term = out[:, c:c + block], step[:, :min(block, channels - c)]
        np.multiply(first[:, c:c + block], w[c:c + block, 0], out=part)
        for t, view in enumerate(views[1:], 1):
            part += np.multiply(view[:, c:c + block], w[c:c + block, t], out=term)
    return out


def grouped_conv(attrs: dict, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Convolution of x [N, G*Cg, ...] with w [G, Og, Cg, *k] -> [N, G*Og, *out]."""
    groups, og, cg, *kernel = w.shape
    return _conv(x, w.reshape(groups, og, -1), kernel, _geometry(attrs, x.shape, kernel))


class PlannedConv:
    """grouped_conv with constant filters w [G, Og, Cg, *k]: the filter matrix made once and
    the window geometry once per data shape; float32 2-D filters through the native GEMM (or
    depthwise kernel) where there is one, which also adds `bias` (per output channel, flat)
    and runs `relu` (the ReLU's in-place path) in its own pass when the runtime's fusion hands
    them over (`takes_bias`)."""

    bias: np.ndarray | None = None
    relu: Callable[[np.ndarray], None] | None = None

    def __init__(self, attrs: dict, w: np.ndarray) -> None:
        groups, og, cg, *kernel = w.shape
        self.attrs, self.kernel = attrs, kernel
        self.matrix = np.ascontiguousarray(w.reshape(groups, og, -1))
        strides, dilations = spatial_attrs(attrs, len(kernel), kernel)[:2]
        self.native = kernels() if w.dtype == np.float32 else None
        self.gemm = (NativeConv(self.matrix, kernel, self.native)
                     if self.native is not None and NativeConv.fits(self.matrix, kernel) else None)
        self.by_tap = (tap_matrix(self.matrix[0], kernel) if self.gemm is None and groups == 1
                       and tap_sums_fit(og, cg, strides, math.prod(kernel)) else None)
        self.planned_dw = (
            _planned_depthwise(w.reshape(groups, *kernel), strides, dilations, self.native)
            if og == cg == 1 and groups > 1 and w.dtype in _WIDE else None)
        self.takes_bias = self.gemm is not None or isinstance(self.planned_dw, NativeDepthwise)
        self.geometry: dict[tuple, tuple] = {}
        self.runs: dict[tuple, Callable | None] = {}

    def _geometry(self, x: np.ndarray) -> tuple:
        geo = self.geometry.get(x.shape)
        if geo is None:
            geo = self.geometry[x.shape] = _geometry(self.attrs, x.shape, self.kernel)
        return geo

    def _native(self, x: np.ndarray) -> tuple[Callable | None, np.ndarray]:
        """The native GEMM's run for data like x (bound once per shape, bias and ReLU), or
        None where it does not take it; and x, C-contiguous where it does."""
        if self.gemm is None or x.dtype != np.float32:
            return None, x
        key = (x.shape, id(self.bias), self.relu is None)
        if key not in self.runs:
            geo = self._geometry(x)
            self.runs[key] = (self.gemm.bound(x.shape, geo, self.bias, self.relu is not None)
                              if NativeConv.takes(x, geo) else None)
        run = self.runs[key]
        return run, x if run is None or x.flags.c_contiguous else np.ascontiguousarray(x)

    def into(self, inputs: list[np.ndarray], out: np.ndarray) -> np.ndarray:
        """The output written into `out` (C-contiguous float32) where the native GEMM takes
        the layer and the output has out's shape (then out), else a new array."""
        run, x = self._native(inputs[0])
        shape = (x.shape[0], self.matrix.shape[0] * self.matrix.shape[1],
                 *self._geometry(x)[3])
        if (run is not None and out.shape == shape and out.dtype == np.float32
                and out.flags.c_contiguous):
            return run(x, out)
        return self(inputs)[0]

    def __call__(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        run, x = self._native(inputs[0])
        if run is not None:
            return [run(x, None)]
        geo = self._geometry(x)
        if (isinstance(self.planned_dw, NativeDepthwise) and x.dtype == np.float32
                and math.prod(self.kernel) > 1):  # the bias and ReLU in the kernel's pass
            return [self.planned_dw(x, geo[2], geo[3], self.bias, self.relu is not None)]
        y = _conv(x, self.matrix, self.kernel, geo, self.by_tap, self.planned_dw)
        if self.bias is not None:
            np.add(y, self.bias.reshape(1, -1, *([1] * (y.ndim - 2))), out=y)
        if self.relu is not None:
            self.relu(y)
        return [y]


def _planned_depthwise(w: np.ndarray, strides: list[int], dilations: list[int],
                       native: Kernels | None) -> BandedDepthwise | NativeDepthwise | None:
    """The native kernel (for float32 filters) where it fits and there is one, else the
    banded GEMMs where they fit, else None (the shifted multiply-adds)."""
    kernel = list(w.shape[1:])
    if native is not None and NativeDepthwise.fits(kernel, dilations):
        return NativeDepthwise(w, strides, native)
    if BandedDepthwise.fits(kernel, strides, dilations):
        return BandedDepthwise(w)
    return None


def conv_input_problem(x: tuple | None, w: tuple | None, grouped: bool) -> str | None:
    """Data rank = filter rank (one less for grouped filters [G, O, C, *k]) and input channels
    = filter channels (times G), as OpenVINO's Convolution/GroupConvolution inference needs."""
    if x is None or w is None:
        return None
    extra = 1 if grouped else 0
    if len(x) < 3 or len(w) != len(x) + extra:
        return (f"data rank {len(x)} (shape {list(x)}) does not fit filters of rank {len(w)} "
                f"(shape {list(w)}); data needs rank {len(w) - extra}")
    channels = w[1] if not grouped else w[0] * w[2] if min(w[0], w[2]) >= 0 else DYN
    if x[1] >= 0 and channels >= 0 and x[1] != channels:
        return f"data has {x[1]} channels (shape {list(x)}) but the filters take {channels}"
    return None


class Convolution(Op):
    op = type = "Convolution"
    version = "opset1"
    in_ports_count = 2
    attr_types = dict(_CONV_ATTRS)
    defaults = {"auto_pad": "explicit"}
    same_type_inputs = 2

    @classmethod
    def check_inputs(cls, attrs, shapes, types, values):
        problem = conv_input_problem(shapes[0], shapes[1], grouped=False)
        return problem or super().check_inputs(attrs, shapes, types, values)

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        w = shapes[1]
        kernel = None if w is None else list(w[2:])
        return [conv_shape(attrs, shapes[0], kernel, DYN if w is None else w[0])]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x, w = inputs
        return [grouped_conv(attrs, x, w[None])]

    @classmethod
    def plan(cls, attrs, values, used):
        w = values[1]
        if w is None or w.dtype.kind != "f":
            return super().plan(attrs, values, used)
        return PlannedConv(attrs, w[None])


class GroupConvolution(Op):
    """Filters [GROUPS, C_OUT, C_IN, *k]. https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/convolution/group-convolution-1.html"""

    op = type = "GroupConvolution"
    version = "opset1"
    in_ports_count = 2
    attr_types = dict(_CONV_ATTRS)
    defaults = {"auto_pad": "explicit"}
    same_type_inputs = 2

    @classmethod
    def check_inputs(cls, attrs, shapes, types, values):
        problem = conv_input_problem(shapes[0], shapes[1], grouped=True)
        return problem or super().check_inputs(attrs, shapes, types, values)

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        w = shapes[1]
        kernel = None if w is None else list(w[3:])
        out_ch = DYN if w is None or min(w[:2]) < 0 else w[0] * w[1]
        return [conv_shape(attrs, shapes[0], kernel, out_ch)]

    @classmethod
    def evaluate(cls, attrs, inputs):
        return [grouped_conv(attrs, inputs[0], inputs[1])]

    @classmethod
    def plan(cls, attrs, values, used):
        w = values[1]
        if w is None or w.dtype.kind != "f":
            return super().plan(attrs, values, used)
        return PlannedConv(attrs, w)
