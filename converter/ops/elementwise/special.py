"""Vectorised special functions numpy lacks, shared by the built-in ops and generated ones: erf
(float64-accurate, ~1e-15 relative), and erf and the GELUs in float32 by blocks that stay in
cache, each a few passes of in-place numpy over a fixed polynomial."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["erf", "erf32", "gelu32", "gelu_tanh32"]

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


_CHUNK = 1 << 15  # float32 elements per block: a block's scratch stays in the L2 cache

# The float32 polynomials below (highest power first) are minimax fits, by Lawson's reweighted
# least squares on a Chebyshev fit in float64 to math.erf / math.erfc, rounded to float32;
# tests/ops/test_erf_gelu.py derives them again.
_ERF_ONE = 3.92  # float32 erf is 1 from here on
# erf(z) / z = P(u), u = 2 z^2 / _ERF_ONE^2 - 1, |z| <= _ERF_ONE; relative error 2.4e-7, the
# constant term raised by ulps until erf(_ERF_ONE) evaluates to at least 1
_ERF_POLY = np.float32([
    -0.000844712369, 0.00209914404, -0.00139171525, 0.00191868807, -0.00766456313,
    0.0142116183, -0.0199921168, 0.0296965037, -0.0434379764, 0.0583963394, -0.0740196034,
    0.0905969217, -0.109179243, 0.134084553, -0.180108622, 0.360736817,
])
_GELU_P = 0.4  # v = a / (2 (1 + p a)) for a = |x|
# a Phi(-a) = v exp(Q(v) - a^2/2) for a >= 0 (Phi the normal CDF), a <= 14.5 (beyond, a Phi(-a)
# is below float32's smallest number), so Q = log((1 + p a) erfc(a / sqrt 2)) + a^2/2;
# error 8e-8 in Q, so relative in the tail
_GELU_TAIL_POLY = np.float32([
    0.031854976, -0.114638396, 0.11839442, -0.0392869078, 0.0830917209, 0.0171143282,
    -0.229446575, -0.795783639, 8.3889006e-08,
])


def _horner(coef: np.ndarray, u: np.ndarray, out: np.ndarray) -> np.ndarray:
    """out = the polynomial coef (highest power first) at u, in place."""
    np.multiply(u, coef[0], out=out)
    for k in coef[1:-1]:
        out += k
        out *= u
    out += coef[-1]
    return out


def _erf_block(x: np.ndarray, out: np.ndarray, scratch: list[np.ndarray]) -> None:
    """out = z P(u) for z = x clipped to +-_ERF_ONE, clipped to [-1, 1] (exactly +-1 from
    _ERF_ONE on, infinities included; NaN stays NaN)."""
    z, u = scratch[:2]
    np.clip(x, np.float32(-_ERF_ONE), np.float32(_ERF_ONE), out=z)
    np.square(z, out=u)
    u *= np.float32(2 / _ERF_ONE**2)
    u -= np.float32(1)
    _horner(_ERF_POLY, u, out)
    out *= z
    np.clip(out, np.float32(-1), np.float32(1), out=out)


def _gelu_block(x: np.ndarray, out: np.ndarray, scratch: list[np.ndarray]) -> None:
    """out = x Phi(x) = max(x, 0) - a Phi(-a), a = |x|: the tail a Phi(-a) stays relative
    accurate for negative x (no 1 + erf cancellation). v = 1 / (2p + 1 / (a/2)) stays finite
    for infinite x (v -> 1 / 2p, exp -> 0)."""
    a, c, v, q = scratch[:4]
    np.multiply(np.abs(x, out=a), np.float32(0.5), out=c)
    np.divide(np.float32(1), c, out=v)
    v += np.float32(2 * _GELU_P)
    np.divide(np.float32(1), v, out=v)
    _horner(_GELU_TAIL_POLY, v, q)
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
    scratch = [np.empty(size, np.float32) for _ in range(4)]
    with np.errstate(all="ignore"):
        for i in range(0, flat_in.size, _CHUNK):
            block = flat_in[i:i + _CHUNK]
            fn(block, flat_out[i:i + _CHUNK], [s[:block.size] for s in scratch])
    return out


def erf32(x: np.ndarray) -> np.ndarray:
    """erf of a float32 array in float32, block by block."""
    return _blocks(_erf_block, x)


def gelu32(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """x Phi(x) of a float32 array in float32 (into out, which may be x), block by block."""
    return _blocks(_gelu_block, x, out)


def gelu_tanh32(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """GELU's tanh approximation of a float32 array in float32 (into out, which may be x)."""
    return _blocks(_gelu_tanh_block, x, out)
