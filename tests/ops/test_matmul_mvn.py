"""The data-chosen paths of MatMul and MVN that transformer layers take: a strided (transposed)
batch by a 2-D weight as one GEMM over rows, and a LayerNorm (MVN over the last axis) of a
transposed tensor, its variance by row dot products."""

from __future__ import annotations

import numpy as np
import pytest

from converter.ops.op import Op

OPS = Op.registered_ops
RNG = np.random.default_rng(11)


def _attrs(name: str, **kw):
    return {**OPS[name].defaults, **kw}


def test_matmul_of_a_strided_or_empty_batch_by_a_matrix():
    a = RNG.standard_normal((2, 4, 3, 5)).astype(np.float32).transpose(0, 2, 1, 3)
    b = RNG.standard_normal((5, 6)).astype(np.float32)
    y = OPS["MatMul"].compute(_attrs("MatMul"), [a, b])[0]
    np.testing.assert_allclose(y, np.einsum("bhik,kj->bhij", a, b), rtol=1e-5, atol=1e-5)
    assert OPS["MatMul"].compute(_attrs("MatMul"), [a[:, :0], b])[0].shape == (2, 0, 4, 6)
    inner = OPS["MatMul"].compute(_attrs("MatMul"), [a[..., :0], b[:0]])[0]
    np.testing.assert_array_equal(inner, np.zeros((2, 3, 4, 6)))


@pytest.mark.parametrize("axes", [(3,), (2, 3), (1,), (1, 2, 3)])
@pytest.mark.parametrize("inside", [True, False])
def test_mvn_of_a_transposed_tensor(axes, inside):
    x = (RNG.standard_normal((2, 5, 6, 7)) * 3 + 1).astype(np.float32).transpose(0, 2, 3, 1)
    mode = "inside_sqrt" if inside else "outside_sqrt"
    y = OPS["MVN"].compute(_attrs("MVN", eps=1e-3, eps_mode=mode), [x, np.int64(axes)])[0]
    v = x.astype(np.float64)
    centered = v - v.mean(axes, keepdims=True)
    var = np.square(centered).mean(axes, keepdims=True)
    expected = centered / (np.sqrt(var + 1e-3) if inside else np.sqrt(var) + 1e-3)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)


def test_mvn_without_variance_only_centers():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    y = OPS["MVN"].compute(_attrs("MVN", normalize_variance=False), [x, np.int64([2])])[0]
    np.testing.assert_allclose(y, x - x.mean(2, keepdims=True), rtol=1e-6, atol=1e-7)
