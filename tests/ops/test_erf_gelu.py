"""The float32 paths of Erf-1 and Gelu-7 (special.erf32, gelu32, gelu_tanh32: by blocks, Gelu
in place for a fused layer) against math.erf / math.erfc and against the ops' plain float64
paths, over the whole float32 range: 0, tiny, negative tails, huge, infinities and NaN; and
their polynomials are the fits special.py documents."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.polynomial import Chebyshev, Polynomial

from converter.ops.elementwise import special
from converter.ops.op import Op

GELU, ERF = Op.registered_ops["Gelu"], Op.registered_ops["Erf"]
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
def test_in_place_path_for_a_fused_layer(mode, numpy_only):
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


def test_erf_float32_is_accurate_over_the_whole_range():
    got = special.erf32(WIDE)
    want = np.array([math.erf(v) for v in WIDE.astype(float)])
    np.testing.assert_allclose(got, want, rtol=3e-7, atol=1e-45)
    np.testing.assert_array_equal(special.erf32(SPECIALS), [1, -1, np.nan, 0, 0])
    assert np.all(special.erf32(np.float32([3.92, 1e30, -5])) == [1, 1, -1])
    plain = ERF.compute({}, [WIDE.astype(np.float64)])[0]
    np.testing.assert_allclose(ERF.compute({}, [WIDE])[0], plain, rtol=3e-7, atol=1e-45)
    assert ERF.compute({}, [np.linspace(-4, 4, 9).astype(np.float16)])[0].dtype == np.float16


def _lawson(variable: np.ndarray, target: np.ndarray, degree: int, relative: bool) -> Chebyshev:
    """special.py's fit: minimax by reweighted least squares on a Chebyshev fit."""
    weights = np.full(variable.size, 1 / variable.size)
    for _ in range(20):
        fit = Chebyshev.fit(variable, target, degree, w=np.sqrt(weights))
        error = np.abs(fit(variable) - target)
        weights *= (error / np.abs(target) if relative else error) + 1e-30
        weights /= weights.sum()
    return fit


def test_polynomials_are_the_documented_fits():
    z = np.linspace(0.0, special._ERF_ONE, 4001)
    ratio = np.array([math.erf(v) / v if v else 2 / math.sqrt(math.pi) for v in z])
    fit = _lawson(z * z, ratio, 15, relative=True)  # domain [0, _ERF_ONE^2]: u = 2s/S - 1
    erf_poly = Chebyshev(fit.coef).convert(kind=Polynomial).coef[::-1].astype(np.float32)
    np.testing.assert_allclose(special._ERF_POLY[:-1], erf_poly[:-1], rtol=1e-6)
    assert 0 <= (special._ERF_POLY[-1] - erf_poly[-1]) / np.spacing(erf_poly[-1]) <= 8
    p = special._GELU_P
    a = np.linspace(0.0, 14.5, 2001)
    q = np.log1p(p * a) + np.log([math.erfc(v / math.sqrt(2)) for v in a]) + a * a / 2
    fit = _lawson(a / (2 * (1 + p * a)), q, 8, relative=False)
    tail = fit.convert(kind=Polynomial, domain=[-1, 1], window=[-1, 1]).coef[::-1]
    np.testing.assert_allclose(special._GELU_TAIL_POLY, tail.astype(np.float32), rtol=1e-6,
                               atol=1e-12)
