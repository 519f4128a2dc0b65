"""Vectorised special functions numpy lacks, shared by the built-in ops and generated ones: erf
(float64-accurate, ~1e-15 relative), and erf/erfc and the GELUs in float32 by blocks that stay
in cache."""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.polynomial import Chebyshev, Polynomial

__all__ = ["erf", "erf32", "erfc32", "gelu32", "gelu_tanh32"]

_SPLIT = 2.0  # series below, continued fraction above
_SERIES_TERMS = 32
_FRACTION_TERMS = 60
_ONE_ABOVE = 6.5  # erf(x) rounds to 1 in float64 here


def erf(x: np.ndarray) -> np.ndarray:
    """Gauss error function in float64."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    out = np.where(np.isnan(a), a, 1.0)
    small = a < _SPLIT
    s = a[small]
    # erf(s) = 2/sqrt(pi) e^(-s^2) sum_n 2^n s^(2n+1) / (2n+1)!!  (all terms positive)
    term, total, s2 = s.copy(), s.copy(), 2 * s * s
    for n in range(_SERIES_TERMS):
        term = term * s2 / (2 * n + 3)
        total += term
    out[small] = 2 / math.sqrt(math.pi) * np.exp(-s * s) * total
    big = ~small & (a < _ONE_ABOVE)
    b = a[big]
    # erfc(b) = e^(-b^2) / sqrt(pi) / (b + (1/2) / (b + 1 / (b + (3/2) / (b + ...))))
    t = b.copy()
    for k in range(_FRACTION_TERMS, 0, -1):
        t = b + (k / 2) / t
    out[big] = 1 - np.exp(-b * b) / (math.sqrt(math.pi) * t)
    return np.copysign(out, x)


_CHUNK = 1 << 15  # float32 elements per block: each block's temporaries stay in cache
_FIT_DEGREE = 9


def _fit_erfc() -> np.ndarray:
    """Power-series coefficients (highest first, for np.polyval order) of h(u), u = 2t - 1 in
    [-1, 1], t = 1 / (1 + z/2), with erfc(z) = t exp(-z^2 + h) for z >= 0: a least-squares
    Chebyshev fit to math.erfc down to where float32 underflows."""
    z = np.linspace(0.0, 10.0, 4001)
    t = 1 / (1 + z / 2)
    h = np.log([math.erfc(v) for v in z]) - np.log(t) + z * z
    fit = np.polynomial.Chebyshev.fit(2 * t - 1, h, _FIT_DEGREE, domain=[-1, 1])
    return np.polynomial.chebyshev.cheb2poly(fit.coef)[::-1].astype(np.float32)


_ERFC_FIT = _fit_erfc()


def _erfc_block(z: np.ndarray, out: np.ndarray, scratch: list[np.ndarray]) -> None:
    """out = erfc(z) for float32 z (any sign), about float32-ulp accurate relative to erfc;
    every step in place on the scratch blocks (a fresh temporary per step costs more here
    than the arithmetic)."""
    a, t, u, h, lo = scratch[:5]
    np.minimum(np.abs(z, out=a), np.float32(11), out=a)  # erfc(11) is 0 in float32
    np.divide(np.float32(1), np.add(np.multiply(a, np.float32(0.5), out=t), np.float32(1),
                                    out=t), out=t)
    np.subtract(np.multiply(t, np.float32(2), out=u), np.float32(1), out=u)
    h.fill(_ERFC_FIT[0])
    for c in _ERFC_FIT[1:]:
        h *= u
        h += c
    hi = np.floor(np.multiply(a, np.float32(256), out=u), out=u)
    hi *= np.float32(1 / 256)  # 12 bits: hi*hi is exact
    np.subtract(a, hi, out=lo)  # z^2 = hi^2 + (z - hi)(z + hi), the big part kept apart
    lo *= np.add(a, hi, out=a)
    h -= lo
    np.exp(h, out=h)
    np.multiply(np.exp(np.negative(np.square(hi, out=hi), out=hi), out=hi), h, out=out)
    out *= t
    np.subtract(np.float32(2), out, out=out, where=np.less(z, 0, out=scratch[6]))


# erf(x) = 2/sqrt(pi) sum_n (-1)^n x^(2n+1) / (n! (2n+1)): its first terms, highest first
_SERIES32 = np.float32([2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1))
                        for n in range(7)][::-1])
_SMALL = 0.5  # below: erf by the series (1 - erfc would lose the low bits)


def _erf_block(x: np.ndarray, out: np.ndarray, scratch: list[np.ndarray]) -> None:
    _erfc_block(x, out, scratch)
    np.subtract(np.float32(1), out, out=out)
    x2, series, small = np.square(x, out=scratch[0]), scratch[5], scratch[6]
    series.fill(_SERIES32[0])
    for c in _SERIES32[1:]:
        series *= x2
        series += c
    series *= x
    np.copyto(out, series, where=np.less(np.abs(x, out=x2), np.float32(_SMALL), out=small))


def erf32(x: np.ndarray) -> np.ndarray:
    """erf of a float32 array in float32, block by block."""
    return _blocks(_erf_block, x)


def erfc32(z: np.ndarray) -> np.ndarray:
    """erfc of a float32 array in float32, block by block."""
    return _blocks(_erfc_block, z)


def _blocks(fn, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """fn(block, out block, scratch blocks) over x; out may be x itself (fn reads each input
    block before it writes that output block)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    if out is not None and not (out.flags.c_contiguous and out.dtype == np.float32):
        out[...] = _blocks(fn, x)
        return out
    out = np.empty_like(x) if out is None else out
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    size = min(_CHUNK, flat_in.size)
    scratch = [np.empty(size, np.float32) for _ in range(6)] + [np.empty(size, bool)]
    with np.errstate(all="ignore"):
        for i in range(0, flat_in.size, _CHUNK):
            block = flat_in[i:i + _CHUNK]
            fn(block, flat_out[i:i + _CHUNK], [s[:block.size] for s in scratch])
    return out


_GELU_P = 0.4  # v = a / (2 (1 + p a)) for a = |x|
_GELU_FIT_TO = 14.5  # a Phi(-a) is below float32's smallest number from here on
_GELU_DEGREE = 8


@functools.cache
def _gelu_tail_fit() -> np.ndarray:
    """Power-series coefficients (highest first) of q(v), v = a / (2 (1 + p a)), such that
    a Phi(-a) = v exp(q(v) - a^2/2) for a >= 0 (Phi the normal CDF), so q is
    log((1 + p a) erfc(a / sqrt 2)) + a^2/2. Minimax in q (relative in the tail) by Lawson's
    reweighted least squares on a Chebyshev fit to math.erfc; error about 1e-7."""
    a = np.linspace(0.0, _GELU_FIT_TO, 2001)
    v = a / (2 * (1 + _GELU_P * a))
    q = np.log1p(_GELU_P * a) + np.log([math.erfc(z / math.sqrt(2)) for z in a]) + a * a / 2
    weights = np.full(a.size, 1 / a.size)
    for _ in range(20):
        fit = Chebyshev.fit(v, q, _GELU_DEGREE, w=np.sqrt(weights))
        weights *= np.abs(fit(v) - q) + 1e-30
        weights /= weights.sum()
    return fit.convert(kind=Polynomial, domain=[-1, 1], window=[-1, 1]).coef[::-1].astype(
        np.float32)


def _gelu_block(x: np.ndarray, out: np.ndarray, scratch: list[np.ndarray]) -> None:
    """out = x Phi(x) = max(x, 0) - a Phi(-a), a = |x|: the tail a Phi(-a) stays relative
    accurate for negative x (no 1 + erf cancellation). v = 1 / (2p + 1 / (a/2)) stays finite
    for infinite x (v -> 1 / 2p, exp -> 0)."""
    a, c, v, q = scratch[:4]
    coef = _gelu_tail_fit()
    np.multiply(np.abs(x, out=a), np.float32(0.5), out=c)
    np.divide(np.float32(1), c, out=v)
    v += np.float32(2 * _GELU_P)
    np.divide(np.float32(1), v, out=v)
    np.multiply(v, coef[0], out=q)
    for k in coef[1:-1]:
        q += k
        q *= v
    q += coef[-1]
    q -= np.multiply(a, c, out=a)  # a^2/2: exact a, one rounding
    np.exp(q, out=q)
    q *= v
    np.multiply(x, np.float32(0.5), out=out)
    out += c  # max(x, 0) as (x + |x|) / 2, exact; -inf gives NaN as x Phi(x) does
    out -= q


def _gelu_tanh_block(x: np.ndarray, out: np.ndarray, scratch: list[np.ndarray]) -> None:
    """out = x (1 + tanh(y)) / 2 = x / (1 + exp(-2y)), y = sqrt(2/pi) (x + 0.044715 x^3):
    the exp form keeps the negative tail relative accurate."""
    k = -2 * math.sqrt(2 / math.pi)
    e = scratch[0]
    np.square(x, out=e)
    e *= np.float32(k * 0.044715)
    e += np.float32(k)
    e *= x
    np.exp(e, out=e)
    e += np.float32(1)
    np.divide(x, e, out=out)


def gelu32(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """x Phi(x) of a float32 array in float32 (into out, which may be x), block by block."""
    return _blocks(_gelu_block, x, out)


def gelu_tanh32(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """GELU's tanh approximation of a float32 array in float32 (into out, which may be x)."""
    return _blocks(_gelu_tanh_block, x, out)
