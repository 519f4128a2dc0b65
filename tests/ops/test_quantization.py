"""Quantized ONNX ops (QuantizeLinear/DequantizeLinear per tensor, per axis and blocked;
QLinearConv, QLinearMatMul, MatMulInteger, ConvInteger, DynamicQuantizeLinear) through our IR
in real OpenVINO and in the shim, against onnxruntime: integers within one quantization step,
floats within 1e-5. QuantizeLinear becomes FakeQuantize + Convert, as in OpenVINO's frontend."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from converter.ops.quantization.fake_quantize import FakeQuantize
from extgen.cli import main
from tests.conftest import make_model

F, I8, U8, I32 = TensorProto.FLOAT, TensorProto.INT8, TensorProto.UINT8, TensorProto.INT32
RNG = np.random.default_rng(16)


def _check(model: onnx.ModelProto, feeds: list[np.ndarray]) -> None:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {i.name: x for i, x in zip(session.get_inputs(), feeds)})
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(feeds)
        for e, g in zip(expected, got):
            assert g.shape == e.shape and g.dtype == e.dtype, engine
            if e.dtype.kind in "iu":
                assert np.abs(g.astype(np.int64) - e).max(initial=0) <= 1, engine
            else:
                np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=engine)


def _floats(*shape: int) -> np.ndarray:
    return RNG.uniform(-4, 4, shape).astype(np.float32)


def test_fake_quantize_evaluate() -> None:
    x = np.array([-3.0, -1.0, 0.2, 0.26, 1.0, 5.0], np.float32)
    low, high = np.float32(-1), np.float32(1)
    y = FakeQuantize.evaluate({"levels": 5}, [x, low, high, low, high])[0]
    np.testing.assert_array_equal(y, [-1, -1, 0, 0.5, 1, 1])


@pytest.mark.parametrize("dtype", [I8, U8])
@pytest.mark.parametrize("mode", ["tensor", "axis", "blocked"])
def test_quantize_and_dequantize_linear(dtype: int, mode: str) -> None:
    np_type = helper.tensor_dtype_to_np_dtype(dtype)
    shape = {"tensor": [], "axis": [3], "blocked": [2, 2, 4, 4]}[mode]
    scale = RNG.uniform(0.02, 0.05, shape).astype(np.float32)
    zero = RNG.integers(-5 if dtype == I8 else 100, 5 if dtype == I8 else 140, shape)
    attrs = {"axis": 1, **({"block_size": 2} if mode == "blocked" else {})}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], **attrs),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], **attrs)]
    model = make_model(nodes, [("x", F, [2, 3, 4, 4])], [("q", dtype, None), ("y", F, None)],
                       {"s": scale, "z": zero.astype(np_type)}, opset=21)
    _check(model, [_floats(2, 3, 4, 4)])


def test_quantize_linear_is_fake_quantize_in_the_ir(tmp_path: Path) -> None:
    model = make_model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"])],
                       [("x", F, [1, 4])], [("q", I8, None)],
                       {"s": np.float32(0.1), "z": np.int8(3)}, opset=13)
    onnx.save(model, tmp_path / "q.onnx")
    assert main(["convert", "--input_model", str(tmp_path / "q.onnx"), "--output_dir",
                 str(tmp_path)]) == 0
    xml = (tmp_path / "q.xml").read_text()
    assert 'type="FakeQuantize"' in xml and 'levels="256"' in xml
    assert 'destination_type="i8"' in xml


def test_qlinear_conv_and_matmul() -> None:
    w = RNG.integers(-60, 60, (4, 3, 3, 3)).astype(np.int8)
    inits = {"xs": np.float32(0.03), "xz": np.uint8(128), "w": w,
             "ws": RNG.uniform(0.01, 0.02, 4).astype(np.float32), "wz": np.zeros(4, np.int8),
             "ys": np.float32(0.2), "yz": np.uint8(120), "b": RNG.integers(-99, 99, 4, np.int32),
             "m": RNG.integers(0, 255, (6, 5)).astype(np.uint8), "ms": np.float32(0.01),
             "mz": np.uint8(130), "os": np.float32(0.5), "oz": np.uint8(125)}
    nodes = [
        helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
                         ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Flatten", ["c"], ["f"], axis=3),
        helper.make_node("Slice", ["f", "st", "en", "ax"], ["g"]),
        helper.make_node("QLinearMatMul", ["g", "ys", "yz", "m", "ms", "mz", "os", "oz"], ["y"]),
    ]
    inits.update(st=np.array([0], np.int64), en=np.array([6], np.int64),
                 ax=np.array([-1], np.int64))
    model = make_model(nodes, [("x", U8, [1, 3, 6, 6])], [("c", U8, None), ("y", U8, None)],
                       inits, opset=13)
    _check(model, [RNG.integers(0, 255, (1, 3, 6, 6)).astype(np.uint8)])


def test_integer_ops_and_dynamic_quantize() -> None:
    nodes = [
        helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["mm"]),
        helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["cv"], pads=[0, 1, 0, 1]),
        helper.make_node("DynamicQuantizeLinear", ["f"], ["q", "qs", "qz"]),
    ]
    inits = {"b": RNG.integers(-128, 127, (5, 3)).astype(np.int8), "az": np.uint8(7),
             "bz": np.int8(-2), "w": RNG.integers(0, 255, (2, 3, 2, 2)).astype(np.uint8),
             "xz": np.uint8(100), "wz": np.uint8(90)}
    model = make_model(nodes, [("a", U8, [4, 5]), ("x", U8, [1, 3, 5, 5]), ("f", F, [3, 7])],
                       [("mm", I32, None), ("cv", I32, None), ("q", U8, None), ("qs", F, None),
                        ("qz", U8, None)], inits, opset=13)
    _check(model, [RNG.integers(0, 255, (4, 5)).astype(np.uint8),
                   RNG.integers(0, 255, (1, 3, 5, 5)).astype(np.uint8), _floats(3, 7)])


def test_dynamic_quantize_of_a_computed_tensor() -> None:
    # quantize_dynamic puts it after LayerNormalization etc.: its input's rank is known only
    # after inference
    nodes = [helper.make_node("Relu", ["f"], ["r"]),
             helper.make_node("DynamicQuantizeLinear", ["r"], ["q", "qs", "qz"])]
    model = make_model(nodes, [("f", F, [2, 3, 7])], [("q", U8, None), ("qs", F, None),
                                                      ("qz", U8, None)], {}, opset=13)
    _check(model, [_floats(2, 3, 7)])


def _residual_net() -> onnx.ModelProto:
    """conv-relu-conv + skip, relu, global pool, matmul: a small float ResNet-like block."""
    weights = {"w1": _floats(8, 3, 3, 3) * 0.1, "b1": _floats(8) * 0.03,
               "w2": _floats(8, 8, 3, 3) * 0.05, "b2": _floats(8) * 0.03, "fc": _floats(8, 5) * 0.1}
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c2", "r1"], ["a"]), helper.make_node("Relu", ["a"], ["r2"]),
             helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("MatMul", ["f", "fc"], ["y"])]
    return make_model(nodes, [("x", F, [1, 3, 16, 16])], [("y", F, [1, 5])], weights, opset=13)


def test_static_quantized_net_runs_in_int8(tmp_path: Path) -> None:
    """onnxruntime's quantize_static (QDQ, per-channel int8 weights, uint8 activations) on
    random calibration data; OpenVINO's CPU plugin runs our IR's convolutions in int8."""
    import openvino as ov
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    class Calibration(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter([{"x": _floats(1, 3, 16, 16)} for _ in range(8)])

        def get_next(self):
            return next(self.batches, None)

    onnx.save(_residual_net(), tmp_path / "f.onnx")
    quantize_static(tmp_path / "f.onnx", tmp_path / "q.onnx", Calibration(),
                    quant_format=QuantFormat.QDQ, per_channel=True)
    model = onnx.load(tmp_path / "q.onnx")
    _check(model, [_floats(1, 3, 16, 16)])
    assert main(["convert", "--input_model", str(tmp_path / "q.onnx"), "--output_dir",
                 str(tmp_path)]) == 0
    compiled = ov.Core().compile_model(str(tmp_path / "q.xml"), "CPU")
    precisions = {str(op.get_rt_info()["runtimePrecision"].astype(str))
                  for op in compiled.get_runtime_model().get_ordered_ops()
                  if op.get_rt_info()["layerType"].astype(str) == "Convolution"}
    assert precisions and precisions <= {"u8", "i8"}, precisions
