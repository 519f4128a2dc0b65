"""ONNX GridSample on volumes [N, C, D, H, W] (OpenVINO's GridSample is 2-D only), in standard
ops: each grid point unnormalized per axis, its nearest voxel or its eight trilinear corners
gathered from the flattened volume (Gather with batch_dims=1), corners outside it zero."""

from __future__ import annotations

import itertools

import numpy as np

from converter.front.onnx.translator import OnnxNode
from converter.graph.port import Port

I64 = np.dtype(np.int64)
_AXES = ((0, 4), (1, 3), (2, 2))  # grid component (x, y, z) -> its volume axis (W, H, D)


def _size(n: OnnxNode, x: Port, axis: int) -> Port:
    return n.op("Gather", [n.op("ShapeOf", [x], output_type=I64), np.int64(axis), np.int64(0)])


def _corner(n: OnnxNode, points: list[Port], sizes: list[Port]) -> tuple[Port, Port]:
    """The flat voxel index of integral points (z, y, x) clamped into the volume (sizes D, H,
    W), and where they lie inside it."""
    inside, flat = None, None
    for p, size in zip(points, sizes):
        whole = n.op("Convert", [p], destination_type=I64)
        ok = n.op("LogicalAnd", [n.op("GreaterEqual", [whole, np.int64(0)]),
                                 n.op("Less", [whole, size])])
        inside = ok if inside is None else n.op("LogicalAnd", [inside, ok])
        index = n.op("Minimum", [n.op("Maximum", [whole, np.int64(0)]),
                                 n.op("Subtract", [size, np.int64(1)])])
        flat = index if flat is None else n.op("Add", [n.op("Multiply", [flat, size]), index])
    return flat, inside


def sample_volume(n: OnnxNode, mode: str) -> Port:
    x, grid = n.input(0), n.input(1)
    if mode not in ("bilinear", "nearest") or n.attr("padding_mode", "zeros") != "zeros":
        n.reject("samples a volume other than linearly or by nearest voxel with zero padding; "
                 "OpenVINO's GridSample is 2-D only", "use mode linear or nearest, padding zeros")
    corners_aligned = bool(n.attr("align_corners", 0))
    volume = n.op("Reshape", [x, np.array([0, 0, -1], I64)], special_zero=True)
    points, sizes = [], []
    for component, axis in _AXES:
        g = n.op("Reshape", [n.op("Gather", [grid, np.int64(component), np.int64(-1)]),
                             np.array([0, -1], I64)], special_zero=True)
        size = _size(n, x, axis)
        extent = n.op("ConvertLike", [size, g])
        one = n.op("ConvertLike", [np.float32(1), g])
        if corners_aligned:  # (g + 1) / 2 * (size - 1)
            p = n.op("Multiply", [n.op("Add", [g, one]),
                                  n.op("Divide", [n.op("Subtract", [extent, one]),
                                                  n.op("Add", [one, one])])])
        else:  # ((g + 1) * size - 1) / 2
            p = n.op("Divide", [n.op("Subtract", [n.op("Multiply", [n.op("Add", [g, one]),
                                                                    extent]), one]),
                                n.op("Add", [one, one])])
        points.append(p)
        sizes.append(size)
    flat_sizes = sizes[::-1]  # z, y, x: the flat index is built from the slowest axis
    if mode == "nearest":
        nearest = [n.op("Round", [p], mode="half_to_even") for p in points]
        terms = [(_corner(n, nearest[::-1], flat_sizes), None)]
    else:
        low = [n.op("Floor", [p]) for p in points]
        frac = [n.op("Subtract", [p, f]) for p, f in zip(points, low)]
        terms = []
        for offsets in itertools.product((0, 1), repeat=3):
            corner = [n.op("Add", [f, n.op("ConvertLike", [np.float32(d), f])])
                      for f, d in zip(low, offsets)]
            weight = None
            for t, d in zip(frac, offsets):
                w = t if d else n.op("Subtract", [n.op("ConvertLike", [np.float32(1), t]), t])
                weight = w if weight is None else n.op("Multiply", [weight, w])
            terms.append((_corner(n, corner[::-1], flat_sizes), weight))
    total = None
    for (flat, inside), weight in terms:
        value = n.op("Gather", [volume, flat, np.int64(2)], batch_dims=1)  # [N, C, P]
        scale = n.op("ConvertLike", [inside, value])
        if weight is not None:
            scale = n.op("Multiply", [scale, weight])
        value = n.op("Multiply", [value, n.op("Unsqueeze", [scale, np.int64(1)])])
        total = value if total is None else n.op("Add", [total, value])
    out = n.op("Concat", [n.op("Slice", [n.op("ShapeOf", [x], output_type=I64),
                                         np.array([0], I64), np.array([2], I64),
                                         np.array([1], I64)]),
                          n.op("Slice", [n.op("ShapeOf", [grid], output_type=I64),
                                         np.array([1], I64), np.array([4], I64),
                                         np.array([1], I64)])], axis=0)
    return n.op("Reshape", [total, out], special_zero=False)
