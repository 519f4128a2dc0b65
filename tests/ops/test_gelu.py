"""Gelu-7's float32 path (special.gelu32 / gelu_tanh32, by blocks, in place for a fused layer)
against math.erfc and against the op's plain float64 path, over the whole float32 range:
0, tiny, negative tails, huge, infinities and NaN."""

from __future__ import annotations

import math

import numpy as np
import pytest

from converter.ops.elementwise import special
from converter.ops.op import Op

GELU = Op.registered_ops["Gelu"]
WIDE = np.concatenate([
    np.linspace(-20, 20, 80001), np.geomspace(1e-38, 1, 200), -np.geomspace(1e-38, 1, 200),
    np.geomspace(20, 3e38, 50), -np.geomspace(20, 3e38, 50), [0.0, -0.0, 1e-45, -1e-45],
]).astype(np.float32)
SPECIALS = np.float32([np.inf, -np.inf, np.nan, 0.0, -0.0])


def _exact(x: np.ndarray) -> np.ndarray:
    """x Phi(x) in float64 through math.erfc (no 1 + erf cancellation in the negative tail)."""
    return np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x.astype(float)])


def _tanh_exact(x: np.ndarray) -> np.ndarray:
    v = x.astype(float)
    with np.errstate(over="ignore"):
        return v / (1 + np.exp(-2 * math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))


def _assert_relative(got: np.ndarray, want: np.ndarray, x: np.ndarray, tiers) -> None:
    """The relative error for x >= low stays within rtol, for each (low, rtol) of tiers."""
    error = np.abs(got.astype(float) - want) / np.abs(want).clip(1e-300)
    for low, rtol in tiers:
        worst = error[x >= low].max()
        assert worst <= rtol, (low, worst)
    assert np.abs(got.astype(float) - want)[x < tiers[-1][0]].max(initial=0) < 1e-20


def test_erf_gelu_float32_is_accurate_over_the_whole_range():
    got = special.gelu32(WIDE)
    assert got.dtype == np.float32
    normal = np.abs(_exact(WIDE)) >= np.finfo(np.float32).tiny
    # about 2 ulp near 0 and for positive x; a^2/2 rounded once costs more in the far tail
    _assert_relative(got[normal], _exact(WIDE)[normal], WIDE[normal],
                     [(0, 3e-7), (-2, 4e-7), (-3, 7e-7), (-9, 5e-6), (-20, 2e-5)])
    assert np.abs(got[~normal]).max() < 1e-37


def test_tanh_gelu_float32_is_accurate_over_the_whole_range():
    got = special.gelu_tanh32(WIDE)
    normal = np.abs(_tanh_exact(WIDE)) >= np.finfo(np.float32).tiny
    _assert_relative(got[normal], _tanh_exact(WIDE)[normal], WIDE[normal],
                     [(0, 3e-7), (-3, 1e-6), (-6, 2e-5), (-8, 1e-4)])


@pytest.mark.parametrize("mode", ["erf", "tanh"])
def test_float32_path_matches_the_float64_path(mode):
    attrs = {"approximation_mode": mode}
    x = np.linspace(-5, 5, 20001).astype(np.float32)
    fast = GELU.compute(attrs, [x])[0]
    plain = GELU.compute(attrs, [x.astype(np.float64)])[0]
    assert fast.dtype == np.float32 and plain.dtype == np.float64
    np.testing.assert_allclose(fast, plain, rtol=2e-6, atol=1e-12)
    # IEEE x * 0.5 * (1 + erf(x / sqrt 2)) at the specials, as onnxruntime and torch give
    np.testing.assert_array_equal(GELU.compute(attrs, [SPECIALS])[0],
                                  GELU.compute(attrs, [SPECIALS.astype(np.float64)])[0])
    half = GELU.compute(attrs, [x.astype(np.float16)])[0]
    assert half.dtype == np.float16
    np.testing.assert_allclose(half, fast.astype(np.float16), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("mode", ["erf", "tanh"])
def test_in_place_path_for_a_fused_layer(mode):
    attrs = {"approximation_mode": mode}
    x = np.random.default_rng(3).standard_normal((3, special._CHUNK + 17)).astype(np.float32)
    want = GELU.compute(attrs, [x])[0]
    fn = GELU.inplace(attrs, [None])
    y = x.copy()
    fn(y)
    np.testing.assert_array_equal(y, want)  # the same kernel, several blocks
    y = np.asfortranarray(x)
    fn(y)  # not C-contiguous: written back whole
    np.testing.assert_array_equal(y, want)
    y = x.astype(np.float64)
    fn(y)
    np.testing.assert_allclose(y, GELU.compute(attrs, [x.astype(np.float64)])[0])
