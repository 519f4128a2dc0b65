"""ONNX GridSample on volumes [N, C, D, H, W] (linear and nearest, zero padding, both corner
alignments) in standard ops, in real OpenVINO and in the shim, against a loop over grid points
written here."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

RNG = np.random.default_rng(5)
X = RNG.standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
GRID = RNG.uniform(-1.2, 1.2, (2, 3, 2, 4, 3)).astype(np.float32)


def _voxel(volume: np.ndarray, z: int, y: int, x: int) -> np.ndarray:
    depth, height, width = volume.shape[1:]
    inside = 0 <= z < depth and 0 <= y < height and 0 <= x < width
    return volume[:, z, y, x] if inside else np.zeros(volume.shape[0])


def _expected(mode: str, aligned: bool) -> np.ndarray:
    out = np.zeros((*X.shape[:2], *GRID.shape[1:4]))
    for b, d, h, w in itertools.product(*(range(s) for s in (2, *GRID.shape[1:4]))):
        coords = []
        for g, size in zip(GRID[b, d, h, w], X.shape[:1:-1]):  # x -> W, y -> H, z -> D
            coords.append((g + 1) / 2 * (size - 1) if aligned else ((g + 1) * size - 1) / 2)
        x, y, z = coords
        if mode == "nearest":
            out[b, :, d, h, w] = _voxel(X[b], *(int(np.rint(c)) for c in (z, y, x)))
            continue
        z0, y0, x0 = (int(np.floor(c)) for c in (z, y, x))
        for dz, dy, dx in itertools.product((0, 1), repeat=3):
            weight = ((z - z0 if dz else 1 - (z - z0)) * (y - y0 if dy else 1 - (y - y0))
                      * (x - x0 if dx else 1 - (x - x0)))
            out[b, :, d, h, w] += weight * _voxel(X[b], z0 + dz, y0 + dy, x0 + dx)
    return out


@pytest.mark.parametrize("aligned", [0, 1])
@pytest.mark.parametrize("mode", ["linear", "nearest"])
def test_grid_sample_volume(mode: str, aligned: int) -> None:
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode=mode, align_corners=aligned)
    model = make_model([node], [("x", TensorProto.FLOAT, list(X.shape)),
                                ("grid", TensorProto.FLOAT, list(GRID.shape))],
                       [("y", TensorProto.FLOAT, None)], opset=22)
    expected = _expected(mode, bool(aligned))
    for engine in ("openvino", "shim"):
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([X, GRID])
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=engine)
