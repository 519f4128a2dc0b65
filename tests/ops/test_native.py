"""The native kernels (converter/ops/native): built here (CI has a C compiler), cached by
source, compiler and CPU, switched off by EXTGEN_NATIVE=0 or a missing or failing compiler
(numpy's paths then run), and each equal to the numpy path it replaces."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from converter.ops import native
from converter.ops.nn._depthwise import NativeDepthwise, depthwise2d
from converter.ops.nn._window import tap_views
from converter.ops.op import Op
from extgen.cli import main
from tests.ops.test_erf_gelu import WIDE, _assert_relative, _exact

GELU = Op.registered_ops["Gelu"]
RNG = np.random.default_rng(11)


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """An empty cache folder and no library loaded yet in this process."""
    monkeypatch.setenv("EXTGEN_CACHE_DIR", str(tmp_path))
    native.kernels.cache_clear()
    yield tmp_path / "native"
    monkeypatch.undo()
    native.kernels.cache_clear()


@pytest.fixture
def numpy_only_plan(monkeypatch):
    """plan(name, attrs, x): the op's planned output with the native kernels switched off."""
    def plan(name: str, attrs: dict, x: np.ndarray) -> np.ndarray:
        with monkeypatch.context() as patch:
            patch.setenv("EXTGEN_NATIVE", "0")
            native.kernels.cache_clear()
            out = Op.registered_ops[name].plan(attrs, [None], [True, False])([x])[0]
        native.kernels.cache_clear()
        assert native.kernels() is not None
        return out
    return plan


def test_built_once_and_cached(fresh):
    assert native.kernels() is not None
    (lib,) = fresh.iterdir()  # one library, no temporary file left beside it
    stamp = lib.stat().st_mtime_ns
    native.kernels.cache_clear()
    assert native.kernels() is not None
    assert [p.stat().st_mtime_ns for p in fresh.iterdir()] == [stamp]


@pytest.mark.parametrize("env", [{"EXTGEN_NATIVE": "0"}, {"CC": "false"},
                                 {"CC": "nonexistent-cc", "PATH": ""}])
def test_switched_off_or_no_compiler_gives_numpy_paths(fresh, monkeypatch, caplog, env):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with caplog.at_level(logging.DEBUG, logger="extgen"):
        assert native.kernels() is None
    assert not fresh.exists() or not any(fresh.iterdir())
    x = RNG.standard_normal((3, 50)).astype(np.float32)
    plan = GELU.plan({"approximation_mode": "erf"}, [None], [True])
    np.testing.assert_allclose(plan([x])[0], GELU.evaluate({}, [x])[0], rtol=1e-6)
    if "EXTGEN_NATIVE" not in env:
        assert "native kernels unavailable" in caplog.text


def test_gelu_is_accurate_over_the_whole_range():
    out = np.empty_like(WIDE)
    native.kernels().gelu(WIDE, out)
    normal = np.abs(_exact(WIDE)) >= np.finfo(np.float32).tiny
    _assert_relative(out[normal], _exact(WIDE)[normal], WIDE[normal],
                     [(0, 3e-7), (-2, 4e-7), (-3, 7e-7), (-9, 5e-6), (-20, 2e-5)])
    assert np.abs(out[~normal]).max() < 1e-37
    specials = np.float32([np.inf, -np.inf, np.nan, 0.0, -0.0])
    native.kernels().gelu(specials, got := np.empty_like(specials))
    np.testing.assert_array_equal(got, GELU.evaluate({}, [specials])[0])


@pytest.mark.parametrize("size", [1, 15, 16, 17, 1000])
def test_gelu_plan_and_in_place_match_numpy(size):
    x = RNG.standard_normal((size, 3)).astype(np.float32).T  # not contiguous
    expected = GELU.evaluate({}, [x])[0]
    np.testing.assert_allclose(GELU.plan({}, [None], [True])([x])[0], expected, rtol=1e-6,
                               atol=1e-30)
    y = np.ascontiguousarray(x)
    GELU.inplace({}, [None])(y)
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-30)


@pytest.mark.parametrize(("shape", "k", "strides", "pads", "out"), [
    ((1, 5, 9, 8), (3, 3), (1, 1), (1, 1), (9, 8)),
    ((2, 3, 20, 37), (7, 7), (1, 1), (3, 3), (20, 37)),  # two vectors and a tail per row
    ((1, 2, 6, 6), (2, 5), (1, 1), (0, 4), (7, 9)),  # more padding after than the data fills
    ((1, 2, 8, 8), (3, 3), (1, 1), (-1, 1), (5, 8)),  # a negative pad: the numpy path crops
    ((1, 3, 56, 56), (3, 3), (2, 2), (1, 1), (28, 28)),  # shufflenet's downsampling
    ((1, 2, 11, 40), (3, 5), (3, 2), (2, 1), (4, 19)),
    ((1, 2, 4, 4), (3, 3), (1, 1), (5, 6), (4, 4)),  # pads past the window: all zero
])
def test_depthwise_matches_numpy(shape, k, strides, pads, out):
    x = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal((shape[1], *k)).astype(np.float32)
    expected = depthwise2d(x, w.reshape(shape[1], -1), k, strides, [1, 1], pads, out)
    got = NativeDepthwise(w, strides, native.kernels())(x, pads, out)
    assert got.shape == expected.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("shape", "strides", "pads"), [
    ((1, 6, 9, 20), [1, 1], [1, 1]),  # rows of sums four at a time, and one more
    ((2, 5, 13, 11), [2, 2], [1, 0]),
])
@pytest.mark.parametrize("relu", [False, True])
def test_depthwise_adds_a_bias_and_relu_in_its_pass(shape, strides, pads, relu):
    op = Op.registered_ops["GroupConvolution"]
    attrs = {"strides": strides, "dilations": [1, 1], "pads_begin": pads, "pads_end": pads,
             "auto_pad": "explicit"}
    x = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal((shape[1], 1, 1, 3, 3)).astype(np.float32)
    planned = op.plan(attrs, [None, w], [True])
    assert planned.takes_bias
    bias = RNG.standard_normal(shape[1]).astype(np.float32)
    planned.bias = bias
    planned.relu = (lambda y: np.maximum(y, 0, out=y)) if relu else None
    want = op.evaluate(attrs, [x, w])[0] + bias[:, None, None]
    np.testing.assert_allclose(planned([x, w])[0], np.maximum(want, 0) if relu else want,
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("shape", "kernel", "strides", "pads"), [
    ((2, 3, 11, 9), [3, 3], [2, 2], [1, 1]),  # rows narrower than a vector: a padded copy
    ((1, 4, 37, 41), [3, 3], [2, 2], [0, 0]),  # squeezenet's: the max reads the rows in place
    ((1, 3, 20, 35), [3, 2], [1, 1], [1, 0]),
    ((1, 3, 21, 40), [2, 5], [3, 3], [0, 2]),
    ((2, 2, 19, 17), [3, 3], [2, 2], [2, 2]),  # windows wholly in the padding on the edges
])
@pytest.mark.parametrize("name", ["MaxPool", "AvgPool"])
def test_pools_match_numpy_with_nan_and_infinities(name, shape, kernel, strides, pads,
                                                   numpy_only_plan):
    x = RNG.standard_normal(shape).astype(np.float32)
    x[0, 0, 4, 4], x[0, 1, 0, 0], x[-1, -1, -1, -1] = np.nan, np.inf, -np.inf
    x[0, -1, 5, 3:9] = [np.nan, 1, -np.inf, np.nan, np.inf, -0.0]
    attrs = {**Op.registered_ops[name].defaults, "kernel": kernel, "strides": strides,
             "pads_begin": pads, "pads_end": pads, "exclude-pad": True, "rounding_type": "ceil"}
    fast = Op.registered_ops[name].plan(attrs, [None], [True, False])([x])[0]
    np.testing.assert_array_equal(fast, numpy_only_plan(name, attrs, x))


@pytest.mark.parametrize(("shape", "k", "strides", "pads", "out"), [
    ((2, 3, 9, 8), (3, 3), (1, 1), (1, 1), (9, 8)),
    ((1, 2, 7, 9), (2, 4), (3, 2), (2, 3), (4, 6)),  # more padding after than the data fills
    ((1, 2, 2, 2), (3, 5), (2, 3), (2, 4), (2, 2)),  # kernel columns wholly in the padding
    ((1, 4, 12, 11), (7, 7), (2, 2), (3, 3), (6, 6)),  # a stem
])
def test_im2col_matches_the_padded_views(shape, k, strides, pads, out):
    x = RNG.standard_normal(shape).astype(np.float32)
    want = np.stack(tap_views(x, k, strides, [1, 1], pads, out), axis=2)
    cols = np.full((*shape[:2], len(want[0, 0]), int(np.prod(out))), np.nan, np.float32)
    native.kernels().im2col(x, cols, k, strides, pads, out)
    np.testing.assert_array_equal(cols.reshape(want.shape), want)


def test_doctor_reports_the_native_kernels(fresh, monkeypatch, capsys):
    assert main(["doctor", "native"]) == 0
    assert capsys.readouterr().out.startswith("ok       native    the shim's native kernels (")
    monkeypatch.setenv("CC", "false")
    assert main(["doctor", "native"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("missing  native") and "`" in out and "numpy paths" in out


@pytest.mark.parametrize("relu", [True, False])
@pytest.mark.parametrize("shape", [
    (2, 3, 7, 7), (1, 5, 33),  # vectors and a tail per row
    (1, 7, 101, 101),  # enough values to split over two threads
])
def test_bias_relu_gives_numpys_bits(relu, shape):
    y = RNG.standard_normal(shape).astype(np.float32)
    y[0, 1, 3], y[-1, -1, -1] = np.nan, -np.inf
    bias = RNG.standard_normal(shape[1]).astype(np.float32)
    want = y + bias.reshape(-1, *[1] * (len(shape) - 2))
    if relu:
        want = np.maximum(want, np.float32(0))
    native.kernels().bias_relu(y, bias, relu)
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("relu", [True, False])
@pytest.mark.parametrize("shape", [(2, 3, 7, 7), (1, 7, 101, 101)])  # one thread, and two
def test_affine_and_add_relu_match_numpy(relu, shape):
    x, other = RNG.standard_normal((2, *shape)).astype(np.float32)
    x[0, 1, 3, 3], x[-1, -1, -1, -1] = np.nan, np.inf
    scale, shift = RNG.standard_normal((2, shape[1])).astype(np.float32)
    kernels = native.kernels()
    affine = x * scale[:, None, None] + shift[:, None, None]
    total = x + other
    if relu:
        affine, total = np.maximum(affine, np.float32(0)), np.maximum(total, np.float32(0))
    np.testing.assert_allclose(kernels.affine_relu(x, scale, shift, relu), affine, rtol=1e-6,
                               atol=1e-6)  # one rounding where the CPU fuses multiply-adds
    np.testing.assert_array_equal(kernels.add_relu(x, other, relu), total)


@pytest.mark.parametrize("n", [7, 33, 96, 768])
@pytest.mark.parametrize("mode", ["inside_sqrt", "outside_sqrt"])
def test_layer_norm_plan_matches_mvn(n, mode, either_path):
    mvn = Op.registered_ops["MVN"]
    x = (RNG.standard_normal((2, 5, n)) * 3 + 100).astype(np.float32)  # an offset to cancel
    attrs = {**mvn.defaults, "eps": 1e-5, "eps_mode": mode}
    axes = np.int64([-1])
    planned = mvn.plan(attrs, [None, axes], [True])([x, axes])[0]
    assert planned.dtype == np.float32 and planned.shape == x.shape
    np.testing.assert_allclose(planned, mvn.evaluate(attrs, [x, axes])[0], rtol=2e-5, atol=2e-5)
    other = np.int64([1, 2])  # not the last axis alone: numpy's path
    np.testing.assert_array_equal(mvn.plan(attrs, [None, other], [True])([x, other])[0],
                                  mvn.evaluate(attrs, [x, other])[0])


@pytest.mark.parametrize("name", ["ReduceMean", "ReduceSum"])
@pytest.mark.parametrize(("shape", "axes", "keep"), [
    ((2, 1000, 13, 13), [2, 3], True),  # global average pooling: the native row sums
    ((3, 5, 7), [-1], False),
    ((3, 5, 7), [0], True),  # not trailing: numpy's path
    ((2, 3, 5000), [2], False),  # rows too long for 16 running sums: numpy's path
])
def test_trailing_sums_plan_matches_evaluate(name, shape, axes, keep):
    op = Op.registered_ops[name]
    x = RNG.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[3] = np.nan
    attrs, axes = {"keep_dims": keep}, np.array(axes)
    got = op.plan(attrs, [None, axes], [True])([x, axes])[0]
    want = op.evaluate(attrs, [x, axes])[0]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-5)  # sums of 169 values near 13


def test_kernels_take_read_only_arrays_and_refuse_other_types():
    x = RNG.standard_normal((1, 2, 20, 20)).astype(np.float32)
    want = native.kernels().pool2d(x, [2, 2], [2, 2], [0, 0], [10, 10], True)
    x.flags.writeable = False  # a constant read from a mapped .bin
    np.testing.assert_array_equal(native.kernels().pool2d(x, [2, 2], [2, 2], [0, 0], [10, 10],
                                                          True), want)
    for bad in (x.astype(np.float64), np.asfortranarray(x[0, 0])[None, None]):
        with pytest.raises(TypeError, match="C-contiguous float32"):
            native.kernels().pool2d(bad, [2, 2], [2, 2], [0, 0], [10, 10], True)
