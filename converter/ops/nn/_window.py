"""Shared window arithmetic for convolution and pooling: auto_pad, output sizes, strided windows."""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from converter.graph.shape import DYN

__all__ = ["fit", "out_dim", "phases", "resolve_pads", "scratch", "spatial_attrs",
           "tap_views", "windows"]


def spatial_attrs(attrs: dict, n: int, kernel: Sequence[int]) -> tuple[list[int], ...]:
    """(strides, dilations, pads_begin, pads_end) for n spatial axes, missing ones defaulted."""
    strides = list(attrs.get("strides") or [1] * n)
    dilations = list(attrs.get("dilations") or [1] * n)
    pads_begin = list(attrs.get("pads_begin") or [0] * n)
    pads_end = list(attrs.get("pads_end") or [0] * n)
    return strides, dilations, pads_begin, pads_end


def resolve_pads(
    auto_pad: str, spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
) -> tuple[list[int], list[int]]:
    """Explicit (pads_begin, pads_end) for auto_pad explicit/notset/valid/same_upper/same_lower."""
    auto_pad = (auto_pad or "explicit").lower()
    if auto_pad == "valid":
        return [0] * len(kernel), [0] * len(kernel)
    if auto_pad not in ("same_upper", "same_lower"):
        return list(pads_begin), list(pads_end)
    begin, end = [], []
    for i, k, s, d in zip(spatial, kernel, strides, dilations):
        total = 0 if i < 0 else max(0, (-(-i // s) - 1) * s + (k - 1) * d + 1 - i)
        small = total // 2
        begin.append(small if auto_pad == "same_upper" else total - small)
        end.append(total - begin[-1])
    return begin, end


def out_dim(i: int, k: int, s: int, d: int, pb: int, pe: int, rounding: str = "floor") -> int:
    """Output length of a window sweep: floor, ceil, or ceil_torch (last window starts in range)."""
    if i < 0:
        return DYN
    window = (k - 1) * d + 1
    span = i + pb + pe - window
    if span < 0:  # OpenVINO's validation refuses it too
        msg = (f"the window ({window} after dilation) is larger than the padded input "
               f"({i + pb + pe}); use a smaller kernel or more padding")
        raise ValueError(msg)
    if rounding == "floor":
        return span // s + 1
    out = -(-span // s) + 1
    if rounding == "ceil_torch" and (out - 1) * s >= i + pb:
        out -= 1
    return out


def fit(x: np.ndarray, first_axis: int, begins: Sequence[int], lengths: Sequence[int],
        fill: float = 0, slot: str | None = None) -> np.ndarray:
    """x[..., b:b+len, ...] per axis from first_axis on, out-of-range parts filled with fill:
    a view when nothing is out of range, else a copy (in the scratch `slot` if one is named)."""
    shape, src, dst = list(x.shape), [slice(None)] * x.ndim, [slice(None)] * x.ndim
    for ax, b, n in zip(range(first_axis, x.ndim), begins, lengths):
        lo, hi = max(0, b), min(x.shape[ax], b + n)
        src[ax], dst[ax], shape[ax] = slice(lo, hi), slice(lo - b, max(lo, hi) - b), n
    inner = x[tuple(src)]
    if list(inner.shape) == shape:
        return inner
    out = np.empty(shape, x.dtype) if slot is None else scratch(slot, shape, x.dtype)
    for ax in range(first_axis, x.ndim):  # fill only what x leaves out
        lead = (slice(None),) * ax
        out[(*lead, slice(0, dst[ax].start))] = fill
        out[(*lead, slice(dst[ax].stop, None))] = fill
    out[tuple(dst)] = inner
    return out


def windows(
    x: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
    pads_begin: Sequence[int], out: Sequence[int], fill: float = 0, slot: str | None = None,
) -> np.ndarray:
    """A strided view [N, C, *out, *kernel] of the windows over x's spatial axes (from axis 2),
    padded in the scratch `slot` if one is named (the view is then valid until its next use)."""
    eff = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    need = [(o - 1) * s + e for o, s, e in zip(out, strides, eff)]
    xp = fit(x, 2, [-p for p in pads_begin], need, fill, slot)
    n = len(kernel)
    view = sliding_window_view(xp, eff, axis=tuple(range(2, 2 + n)))
    sel = (slice(None), slice(None))
    sel += tuple(slice(None, None, s) for s in strides)
    sel += tuple(slice(None, None, d) for d in dilations)
    return view[sel]


def _span(phase: int, stride: int, pad: int, size: int, length: int) -> tuple[int, int, int]:
    """(first phase position, first data index, count) of the data a phase holds: phase
    position u is padded index u * stride + phase, data index u * stride + phase - pad."""
    first = max(0, -(-(pad - phase) // stride))
    start = first * stride + phase - pad
    count = min(length - first, -(-(size - start) // stride)) if start < size else 0
    return first, start, max(0, count)


def phases(x: np.ndarray, strides: Sequence[int], pads: Sequence[int], rows: int, cols: int,
           slot: str, channels_last: bool = False) -> np.ndarray:
    """x [N, C, H, W] zero-padded and split by position modulo the strides into phases
    [N, C, sh, sw, rows, cols] (phase (r, q) row u, column v: padded row u * sh + r, column
    v * sw + q), in the scratch `slot`: a strided window is a plain shift within one phase.
    channels_last: laid out [N, sh, sw, rows, cols, C] instead."""
    (sh, sw), (ph, pw) = strides, pads
    n, c = x.shape[:2]
    if channels_last:
        buffer = scratch(slot, (n, sh, sw, rows, cols, c), x.dtype)
        out = buffer.transpose(0, 5, 1, 2, 3, 4)
    else:
        buffer = out = scratch(slot, (n, c, sh, sw, rows, cols), x.dtype)
    buffer.fill(0)
    for r in range(sh):
        u, y, nu = _span(r, sh, ph, x.shape[2], rows)
        for q in range(sw):
            v, z, nv = _span(q, sw, pw, x.shape[3], cols)
            if nu and nv:
                out[:, :, r, q, u:u + nu, v:v + nv] = x[:, :, y:y + (nu - 1) * sh + 1:sh,
                                                        z:z + (nv - 1) * sw + 1:sw]
    return buffer


def tap_views(
    x: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
    pads_begin: Sequence[int], out: Sequence[int], slot: str | None = None,
) -> list[np.ndarray]:
    """Per kernel position (in np.ndindex order), the view [N, C, *out] of the zero-padded data
    it meets: `windows` sliced by plain indexing; with a scratch `slot`, a strided 2-D window's
    from the data split into phases, so that its rows run unstrided."""
    if len(kernel) == 2 and max(strides) > 1 and math.prod(kernel) > 1 and slot:
        # each window position's rows read unstrided from one phase
        shifts = [[divmod(i * d, s) for i in range(k)]
                  for k, s, d in zip(kernel, strides, dilations)]
        split = phases(x, strides, pads_begin, out[0] + shifts[0][-1][0],
                       out[1] + shifts[1][-1][0], slot)
        return [split[:, :, r, q, a:a + out[0], b:b + out[1]]
                for (a, r), (b, q) in itertools.product(*shifts)]
    need = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out, strides, kernel, dilations)]
    xp = fit(x, 2, [-p for p in pads_begin], need, 0, slot)
    axes = [[slice(i * d, i * d + (o - 1) * s + 1, s) for i in range(k)]
            for k, s, d, o in zip(kernel, strides, dilations, out)]
    return [xp[(slice(None), slice(None), *(a[i] for a, i in zip(axes, pos)))]
            for pos in np.ndindex(*kernel)]


_SCRATCH = threading.local()


def scratch(slot: str, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
    """An uninitialised array in memory that every kernel on this thread asking for `slot`
    reuses: for temporaries that are dead when the kernel returns (columns, padded copies,
    partial sums). Fresh memory of that size would be page-faulted in on every call."""
    nbytes = math.prod(shape) * np.dtype(dtype).itemsize
    buffers = _SCRATCH.__dict__
    buffer = buffers.get(slot)
    if buffer is None or buffer.size < nbytes:
        buffer = buffers[slot] = np.empty(nbytes, np.uint8)
    return buffer[:nbytes].view(dtype).reshape(shape)
