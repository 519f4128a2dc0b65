"""Cast to and from the types OpenVINO lacks, which the IR carries in another type: float8
e4m3fnuz and e5m2fnuz (in f32, rounded half to even to their grid, saturating or NaN beyond it)
and int2 (in i8, wrapped), in real OpenVINO and in the shim, against grids decoded here from the
types' bit layouts. Also the backend's output forms: numpy in, numpy out (bf16 too)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

ENGINES = ("openvino", "shim")
# (ONNX type, exponent bits, mantissa bits, ml_dtypes type); fnuz: bias 2^(e-1), NaN = 0x80
FNUZ = [(TensorProto.FLOAT8E4M3FNUZ, 4, 3, ml_dtypes.float8_e4m3fnuz),
        (TensorProto.FLOAT8E5M2FNUZ, 5, 2, ml_dtypes.float8_e5m2fnuz)]
INPUTS = np.array([0.47892547, 1.0625, 1.1875, -3.3, 232.0, 245.0, 250.0, 1e6, -1e6, np.inf,
                   -np.inf, np.nan, -0.0, 1e-7, 1e-3, 3e-5, 57000.0, 60000.0], np.float32)


def _fnuz_value(code: int, ebits: int, mbits: int) -> float:
    """The value of a fnuz byte, from its sign, exponent and mantissa fields."""
    if code == 0x80:
        return float("nan")
    sign = -1.0 if code & 0x80 else 1.0
    exponent, mantissa = (code >> mbits) & ((1 << ebits) - 1), code & ((1 << mbits) - 1)
    bias = 1 << (ebits - 1)
    if exponent == 0:
        return sign * mantissa / (1 << mbits) * 2.0 ** (1 - bias)
    return sign * (1 + mantissa / (1 << mbits)) * 2.0 ** (exponent - bias)


def _expected_cast(x: float, ebits: int, mbits: int, saturate: bool) -> float:
    """x rounded to the nearest fnuz value, a tie to the even code; past the largest value (or
    to the value one spacing above it) the largest when saturating, else NaN."""
    codes = range(0x00, 0x80)
    grid = [(_fnuz_value(c, ebits, mbits), c) for c in codes]
    top, top_code = grid[-1]
    spacing = top - grid[-2][0]
    if np.isnan(x):
        return float("nan")
    grid.append((top + spacing, top_code + 1))  # the next value, were there one
    magnitude = min(abs(x), top + spacing)
    best = min(grid, key=lambda g: (abs(g[0] - magnitude), g[1] % 2))
    if best[1] > top_code:
        return float(np.copysign(top, x)) if saturate else float("nan")
    return float(np.copysign(best[0], x)) if best[0] else 0.0


def _cast_model(source: int, target: int, shape: list[int], **attrs) -> onnx.ModelProto:
    node = helper.make_node("Cast", ["x"], ["y"], to=target, **attrs)
    return make_model([node], [("x", source, shape)], [("y", target, shape)], opset=23)


@pytest.mark.parametrize("saturate", [1, 0])
@pytest.mark.parametrize(("target", "ebits", "mbits", "dtype"), FNUZ)
def test_cast_float_to_fnuz_rounds_to_its_grid(target, ebits, mbits, dtype, saturate) -> None:
    model = _cast_model(TensorProto.FLOAT, target, [INPUTS.size], saturate=saturate)
    expected = [_expected_cast(float(x), ebits, mbits, bool(saturate)) for x in INPUTS]
    for engine in ENGINES:
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([INPUTS])
        assert got.dtype == np.dtype(dtype), engine
        np.testing.assert_array_equal(got.astype(np.float64), expected, err_msg=engine)


@pytest.mark.parametrize(("source", "ebits", "mbits", "dtype"), FNUZ)
def test_cast_fnuz_to_float_reads_every_code(source, ebits, mbits, dtype) -> None:
    codes = np.arange(256, dtype=np.uint8)
    model = _cast_model(source, TensorProto.FLOAT, [256])
    feed = helper.make_tensor("x", source, [256], codes.tobytes(), raw=True)
    expected = np.array([_fnuz_value(int(c), ebits, mbits) for c in codes], np.float32)
    for engine in ENGINES:
        (got,) = ExtgenBackend.prepare(model, engine=engine).run([feed])
        np.testing.assert_array_equal(numpy_helper.to_array(got), expected, err_msg=engine)


def test_cast_to_int2_wraps_and_back() -> None:
    x = np.arange(-3, 4, dtype=np.float32)
    wrapped = [1, -2, -1, 0, 1, -2, -1]  # two's complement in two bits
    model = make_model([helper.make_node("Cast", ["x"], ["i"], to=TensorProto.INT2),
                        helper.make_node("Cast", ["i"], ["y"], to=TensorProto.FLOAT)],
                       [("x", TensorProto.FLOAT, [7])],
                       [("i", TensorProto.INT2, [7]), ("y", TensorProto.FLOAT, [7])], opset=25)
    for engine in ENGINES:
        small, back = ExtgenBackend.prepare(model, engine=engine).run([x])
        assert small.dtype == np.dtype(ml_dtypes.int2), engine
        np.testing.assert_array_equal(small.astype(np.int8), wrapped, err_msg=engine)
        np.testing.assert_array_equal(back, np.array(wrapped, np.float32), err_msg=engine)


def test_numpy_inputs_give_numpy_outputs_of_types_numpy_lacks() -> None:
    """bf16 in as numpy arrays, bf16 out as a numpy array (ml_dtypes), not a TensorProto."""
    bf16 = ml_dtypes.bfloat16
    model = make_model([helper.make_node("Range", ["a", "b", "c"], ["y"])],
                       [(n, TensorProto.BFLOAT16, []) for n in "abc"],
                       [("y", TensorProto.BFLOAT16, None)], opset=23)
    feeds = [np.array(1, bf16), np.array(7, bf16), np.array(2, bf16)]
    for engine in ENGINES:
        (got,) = ExtgenBackend.prepare(model, engine=engine).run(feeds)
        assert isinstance(got, np.ndarray) and got.dtype == np.dtype(bf16), engine
        np.testing.assert_array_equal(got.astype(np.float32), [1, 3, 5], err_msg=engine)
