"""Interpolate-11: nearest / linear / linear_onnx / cubic resize of chosen axes, one axis at a time.
https://docs.openvino.ai/2025/documentation/openvino-ir-format/operation-sets/operation-specs/image/interpolate-11.html"""

from __future__ import annotations

import numpy as np

from converter.graph.shape import DYN
from converter.ops.op import Op

__all__ = ["Interpolate", "Interpolate1"]


def _source_coords(mode: str, out: int, length: int, scale: float) -> np.ndarray:
    """Coordinate in the input for each output index, per coordinate_transformation_mode."""
    i = np.arange(out, dtype=np.float64)
    if mode == "align_corners":  # the unrounded output length, as ONNX does
        span = length * scale - 1
        return i * ((length - 1) / span) if span > 0 else np.zeros(out)
    if mode == "asymmetric":
        return i / scale
    if mode == "tf_half_pixel_for_nn":
        return (i + 0.5) / scale
    if mode == "pytorch_half_pixel":
        return (i + 0.5) / scale - 0.5 if out > 1 else np.zeros(out)
    return (i + 0.5) / scale - 0.5  # half_pixel


def _round(mode: str, x: np.ndarray, scale: float) -> np.ndarray:
    if mode == "round_prefer_ceil":
        return np.floor(x + 0.5)
    if mode == "floor":
        return np.floor(x)
    if mode == "ceil":
        return np.ceil(x)
    if mode == "simple":
        return np.ceil(x) if scale < 1 else np.floor(x)
    return np.ceil(x - 0.5)  # round_prefer_floor


def _cubic(u: np.ndarray, a: float) -> np.ndarray:
    u = np.abs(u)
    near = ((a + 2) * u - (a + 3)) * u * u + 1
    far = ((a * u - 5 * a) * u + 8 * a) * u - 4 * a
    return np.where(u <= 1, near, np.where(u < 2, far, 0.0))


def _taps(attrs: dict, out: int, length: int, scale: float) -> tuple[np.ndarray, np.ndarray | None]:
    """Input indices [out, T] (clamped to the edges) and their weights [out, T] (None: nearest)."""
    x = _source_coords(attrs["coordinate_transformation_mode"], out, length, scale)
    mode = attrs["mode"]
    if mode == "nearest":
        idx = _round(attrs["nearest_mode"], x, scale).astype(np.int64)
        return np.clip(idx, 0, length - 1)[:, None], None
    cubic = mode == "cubic"
    reach = 2 if cubic else 1
    shrink = min(scale, 1.0) if attrs["antialias"] else 1.0
    half = int(np.ceil(reach / shrink))
    base = np.ceil(x) - 1  # the ratio x - base lies in (0, 1]
    taps = base[:, None] + np.arange(1 - half, half + 1)[None]
    u = (taps - x[:, None]) * shrink
    w = _cubic(u, attrs["cube_coeff"]) if cubic else np.clip(1 - np.abs(u), 0, None)
    if attrs["antialias"]:
        w = w / w.sum(axis=1, keepdims=True)
    return np.clip(taps, 0, length - 1).astype(np.int64), w


def _resize_axis(attrs: dict, x: np.ndarray, axis: int, out: int, scale: float) -> np.ndarray:
    idx, w = _taps(attrs, out, x.shape[axis], scale)
    if w is None:
        return np.take(x, idx[:, 0], axis=axis)
    moved = np.moveaxis(x, axis, -1).astype(np.float64)
    y = np.einsum("...ot,ot->...o", moved[..., idx], w)
    return np.moveaxis(y, -1, axis)


def _plan(attrs: dict, shape, values) -> tuple[list[int], dict[int, tuple[int, float]]]:
    """Padded input shape and {axis: (out_dim, scale)}; dims are DYN when unknown."""
    rank = len(shape)
    pb = list(attrs.get("pads_begin") or []) + [0] * rank
    pe = list(attrs.get("pads_end") or []) + [0] * rank
    padded = [DYN if d < 0 else d + pb[i] + pe[i] for i, d in enumerate(shape)]
    axes = range(rank) if len(values) < 3 or values[2] is None else [
        int(a) % rank for a in np.ravel(values[2])]
    target = values[1]
    plan = {}
    for j, axis in enumerate(axes):
        d = padded[axis]
        if target is None:
            plan[axis] = (DYN, 1.0)
        elif attrs["shape_calculation_mode"] == "sizes":
            size = int(np.ravel(target)[j])
            plan[axis] = (size, size / d if d > 0 else 1.0)
        else:
            scale = float(np.ravel(target)[j])
            plan[axis] = (DYN if d < 0 else int(np.floor(d * scale + 1e-5)), scale)
    return padded, plan


class Interpolate(Op):
    op = type = "Interpolate"
    version = "opset11"
    in_ports_count = 3
    attr_types = {
        "mode": "str", "shape_calculation_mode": "str", "coordinate_transformation_mode": "str",
        "nearest_mode": "str", "antialias": "bool", "pads_begin": "ints", "pads_end": "ints",
        "cube_coeff": "float",
    }
    defaults = {
        "coordinate_transformation_mode": "half_pixel", "nearest_mode": "round_prefer_floor",
        "antialias": False, "pads_begin": [0], "pads_end": [0], "cube_coeff": -0.75,
    }

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        if shapes[0] is None:
            return [None]
        if len(values) > 2 and values[2] is None:
            return [(DYN,) * len(shapes[0])]
        padded, plan = _plan(attrs, shapes[0], values)
        return [tuple(plan.get(i, (d, 1.0))[0] for i, d in enumerate(padded))]

    @classmethod
    def evaluate(cls, attrs, inputs):
        x = inputs[0]
        padded, plan = _plan(attrs, x.shape, inputs)
        pb = list(attrs.get("pads_begin") or []) + [0] * x.ndim
        if padded != list(x.shape):
            x = np.pad(x, [(pb[i], p - d - pb[i]) for i, (d, p) in enumerate(zip(x.shape, padded))])
        y = x
        for axis, (out, scale) in plan.items():
            if out != y.shape[axis] or attrs["mode"] != "nearest" or scale != 1.0:
                y = _resize_axis(attrs, y, axis, out, scale)
        if y.dtype != x.dtype and x.dtype.kind in "iu":
            y = np.round(y)
        return [y.astype(x.dtype, copy=False)]


class Interpolate1(Interpolate):
    """Interpolate-1, as IR from OpenVINO's tools may hold it: `axes` is an attribute and the
    second input the output sizes on them; run as Interpolate-11 the way OpenVINO converts it
    (nearest 'simple', linear as linear_onnx below rank 5; coordinates align_corners, else
    asymmetric, but half_pixel for linear off the two spatial axes of a 4-D input)."""

    op = "Interpolate1"
    type = "Interpolate"
    version = "opset1"
    in_ports_count = 2
    attr_types = {"axes": "ints", "mode": "str", "align_corners": "bool", "antialias": "bool",
                  "pads_begin": "ints", "pads_end": "ints"}
    defaults = {"align_corners": False, "antialias": False, "pads_begin": [0], "pads_end": [0]}

    @staticmethod
    def _as_v11(attrs: dict, rank: int) -> dict:
        mode = attrs["mode"]
        if mode == "linear":
            mode = "linear_onnx" if rank < 5 else "linear"
        padded = any(attrs["pads_begin"]) or any(attrs["pads_end"])
        transform = "asymmetric"
        if attrs["align_corners"]:
            transform = "align_corners"
        elif mode.startswith("linear") and (
                padded or not (rank == 4 and sorted(attrs["axes"]) == [2, 3])):
            transform = "half_pixel"
        return {**Interpolate.defaults, "mode": mode, "shape_calculation_mode": "sizes",
                "nearest_mode": "simple", "coordinate_transformation_mode": transform,
                "antialias": attrs["antialias"], "pads_begin": attrs["pads_begin"],
                "pads_end": attrs["pads_end"]}

    @classmethod
    def infer_shapes(cls, attrs, shapes, values):
        if shapes[0] is None:
            return [None]
        axes = np.array(attrs["axes"], np.int64)
        return super().infer_shapes(cls._as_v11(attrs, len(shapes[0])), shapes,
                                    [*values[:2], axes])

    @classmethod
    def evaluate(cls, attrs, inputs):
        v11 = cls._as_v11(attrs, inputs[0].ndim)
        return super().evaluate(v11, [*inputs[:2], np.array(attrs["axes"], np.int64)])
