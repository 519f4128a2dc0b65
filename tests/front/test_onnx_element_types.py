"""Element types numpy lacks (bf16, float8, int4/uint4, float4) end to end: ONNX Cast and
QuantizeLinear models converted to IR, run in the shim and in OpenVINO, against onnx's reference
evaluator; sub-byte constants packed in the .bin as OpenVINO packs them."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from converter.errors import ConversionError
from converter.ir.packing import pack, unpack
from converter.ir.reader import read_ir
from converter.onnx_backend import ExtgenBackend
from converter.options import ConvertOptions
from converter.pipeline import convert

ENGINES = ("shim", "openvino")
VALUES = np.array([0.3, -1.7, 2.5, 7.0, -8.0, 15.5, 300.0, -1000.0, 1e6, 0.0, np.inf, np.nan],
                  np.float32)
# element type -> engines whose result matches onnx's to the bit
CASTS = {
    TensorProto.BFLOAT16: ENGINES,
    TensorProto.FLOAT8E4M3FN: ENGINES,
    TensorProto.FLOAT8E5M2: ENGINES,
    TensorProto.INT4: ENGINES,
    TensorProto.UINT4: ENGINES,
    TensorProto.FLOAT4E2M1: ("shim",),  # OpenVINO makes NaN 6, onnx makes it -0
}


def _model(nodes, inputs, outputs, inits=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])


def _cast_there_and_back(to: int, saturate: int = 1) -> onnx.ModelProto:
    return _model(
        [helper.make_node("Cast", ["x"], ["t"], to=to, saturate=saturate),
         helper.make_node("Cast", ["t"], ["y"], to=TensorProto.FLOAT)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [12])])


def _values(to: int) -> np.ndarray:
    if to in (TensorProto.INT4, TensorProto.UINT4):  # ONNX leaves out-of-range ints undefined
        x = np.array([0.3, -1.7, 2.5, 7.0, -8.0, 5.5, 1, 2, 3, 4, 6, 0], np.float32)
        return np.abs(x) if to == TensorProto.UINT4 else x
    return VALUES


def _check(model: onnx.ModelProto, engine: str, x: np.ndarray) -> None:
    want = ReferenceEvaluator(model).run(None, {"x": x})
    got = ExtgenBackend.prepare(model, engine=engine).run([x])
    for g, w in zip(got, want):
        g = numpy_helper.to_array(g) if isinstance(g, TensorProto) else g
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g.astype(np.float32), w.astype(np.float32))


@pytest.mark.parametrize(("to", "engine"), [(t, e) for t, es in CASTS.items() for e in es])
def test_cast_through_a_type_numpy_lacks(to: int, engine: str) -> None:
    _check(_cast_there_and_back(to), engine, _values(to))  # 1e6 saturates, NaN stays NaN


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("to", [TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E5M2])
def test_cast_to_float8_without_saturation_overflows(to: int, engine: str) -> None:
    model = _cast_there_and_back(to, saturate=0)
    _check(model, engine, VALUES)
    y = ExtgenBackend.prepare(model, engine=engine).run([VALUES])[0]
    assert not np.isfinite(y[8])  # 1e6 overflows instead of saturating


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("to", [TensorProto.INT4, TensorProto.UINT4, TensorProto.FLOAT8E4M3FN])
def test_quantize_linear_to_a_narrow_type(to: int, engine: str) -> None:
    zero = helper.make_tensor("zero", to, [], [0])
    model = _model(
        [helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"]),
         helper.make_node("Cast", ["q"], ["y"], to=TensorProto.FLOAT)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [12])],
        [numpy_helper.from_array(np.array(0.5, np.float32), "scale"), zero])
    x = np.array([0.2, -0.9, 1.4, 3.3, -4.2, 2.6, 0.0, 1.0, -1.0, 2.2, 3.0, 30.0], np.float32)
    _check(model, engine, x)


def test_int4_weights_stay_packed_in_the_bin(tmp_path: Path) -> None:
    w = np.array([1, -2, 3, -8, 7], ml_dtypes.int4)
    model = _model(
        [helper.make_node("DequantizeLinear", ["w", "scale"], ["c"]),
         helper.make_node("Add", ["x", "c"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.float32(0.5), "scale")])
    onnx.save(model, tmp_path / "m.onnx")
    result = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path))
    consts = [layer for layer in read_ir(result.xml).layers.values()
              if layer.attrs.get("element_type") == "i4"]
    assert [c.attrs["size"] for c in consts] == ["3"]
    blob = result.xml.with_suffix(".bin").read_bytes()
    offset = int(consts[0].attrs["offset"])
    assert blob[offset:offset + 3] == bytes.fromhex("e18307")
    for engine in ENGINES:
        got = ExtgenBackend.prepare(model, engine=engine).run([np.zeros(5, np.float32)])[0]
        np.testing.assert_array_equal(got, [0.5, -1, 1.5, -4, 3.5])


def test_pack_puts_the_first_value_in_the_low_bits() -> None:
    two_bit = np.array([1, 2, 3, 0, 1], ml_dtypes.uint2)
    assert pack(two_bit, 2).tobytes() == bytes.fromhex("3901")  # as OpenVINO's u2 Constant
    four_bit = np.array([1, 2, 3, 0, 1], ml_dtypes.float4_e2m1fn)
    assert pack(four_bit, 4).tobytes() == bytes.fromhex("420502")
    back = unpack(pack(four_bit, 4), 4, np.dtype(ml_dtypes.float4_e2m1fn), 5)
    np.testing.assert_array_equal(back.astype(np.float32), four_bit.astype(np.float32))


def test_a_type_openvino_lacks_is_one_clear_error() -> None:
    """(float8 fnuz and int2, which OpenVINO lacks too, are carried in the IR: see
    tests/ops/test_carried_casts.py)"""
    model = _cast_there_and_back(TensorProto.COMPLEX64)
    with pytest.raises(ConversionError, match="no element type for complex64"):
        ExtgenBackend.prepare(model, engine="shim")


@pytest.mark.parametrize("engine", ENGINES)
def test_cast_like_a_float8_constant_saturates(engine: str) -> None:
    like = numpy_helper.from_array(np.zeros(1, ml_dtypes.float8_e5m2), "like")
    model = _model(
        [helper.make_node("CastLike", ["x", "like"], ["t"]),
         helper.make_node("Cast", ["t"], ["y"], to=TensorProto.FLOAT)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [like])
    _check(model, engine, np.array([1e6, -1e6, 0.5, 3.0], np.float32))
