"""The native kernels built for older x86-64 CPUs than this one (4-float vectors without FMA,
and AVX2's 8 floats with 16 registers, where the GEMM's tile is 6 rows, not 8): the same
results as numpy, so a user's CPU that is not this machine's gets right answers too."""

from __future__ import annotations

import platform

import numpy as np
import pytest

from converter.ops.native import library
from converter.ops.native.build import built_library
from converter.ops.native.library import Kernels
from converter.ops.nn.pooling import MaxPool

RNG = np.random.default_rng(17)
pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64 targets")


@pytest.fixture(scope="module", params=["x86-64", "x86-64-v3"])
def older(request) -> Kernels:
    return Kernels(built_library(request.param))


@pytest.fixture(autouse=True)
def two_threads(monkeypatch):
    monkeypatch.setattr(library, "threads", lambda: 2)


@pytest.mark.parametrize(("m", "k", "n"), [(5, 7, 3), (13, 300, 530), (600, 40, 70)])
def test_gemm_matches_float64_products(older, m, k, n):
    a = RNG.standard_normal((1, m, k)).astype(np.float32)
    b = RNG.standard_normal((1, k, n)).astype(np.float32)
    bias = RNG.standard_normal((1, m)).astype(np.float32)
    out = np.empty((1, m, n), np.float32)
    older.gemm(older.pack_rows(a), b, out, bias, True)
    ref = np.maximum(a[0].astype(np.float64) @ b[0] + bias[0, :, None], 0)
    np.testing.assert_allclose(out[0], ref, rtol=1e-5, atol=3e-4)
    packed_out = np.empty((m, n), np.float32)
    older.gemm_packed_b(a[0], older.pack_columns(b[0]), packed_out, None, False)
    np.testing.assert_allclose(packed_out, a[0].astype(np.float64) @ b[0], rtol=1e-5,
                               atol=3e-4)


def test_shifted_gemm_matches_a_convolution(older):
    x = RNG.standard_normal((1, 3, 10, 12)).astype(np.float32)
    w = RNG.standard_normal((5, 27)).astype(np.float32)
    rows, width = 12, 14  # a 3x3 kernel, padding 1: out 10 x 12 from 12 rows 14 wide
    padded = np.full((1, 1, 3 * rows * width + width + 32), np.nan, np.float32)
    older.pad_channels(x, padded, [1, 1], rows, width)
    c, i, j = np.meshgrid(np.arange(3), np.arange(3), np.arange(3), indexing="ij")
    shifts = (c * rows * width + i * width + j).astype(np.uint64).ravel()
    got = np.empty((1, 5, 10 * 12), np.float32)
    older.shifted_gemm(older.pack_rows(w[None]), shifts, None, False, (width, 12))(padded[0], got)
    got = got.reshape(5, 10, 12)
    grid = np.pad(x[0], ((0, 0), (1, 1), (1, 1)))
    cols = np.stack([grid[:, a:a + 10, b:b + 12] for a in range(3) for b in range(3)], 1)
    np.testing.assert_allclose(got, np.einsum("ok,kyx->oyx", w, cols.reshape(27, 10, 12)),
                               rtol=1e-5, atol=1e-4)


def test_pools_and_gelu_match_numpy(older):
    x = RNG.standard_normal((2, 5, 17, 19)).astype(np.float32)
    x[0, 0, 3, 2:8] = [np.nan, 1, -np.inf, np.nan, np.inf, -0.0]  # NaN wins, in either place
    attrs = {"kernel": [3, 3], "strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1]}
    want = MaxPool.evaluate(dict(attrs, rounding_type="floor", auto_pad="explicit"), [x])[0]
    got = older.pool2d(x, [3, 3], [2, 2], [1, 1], list(want.shape[2:]), True)
    np.testing.assert_array_equal(got, want)
    x = np.nan_to_num(x)
    gelu = np.empty_like(x)
    older.gelu(x, gelu)
    exact = x.astype(np.float64) * 0.5 * (1 + np.vectorize(__import__("math").erf)(x / 2**0.5))
    np.testing.assert_allclose(gelu, exact, rtol=1e-6, atol=1e-7)
