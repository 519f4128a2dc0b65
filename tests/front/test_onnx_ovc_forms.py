"""ONNX ops that extgen writes in ovc's form (op types as ovc's IR holds them), computing what
ovc's IR computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from tests.ovc_forms import assert_ovc_form, onnx_model

_WEIGHTS = np.random.default_rng(5).integers(-5, 5, (4, 4, 3, 3)).astype(np.int8)

# name -> (nodes over "x" -> "y", initializers, y's shape[, opset])
CASES = {
    "softmax": ([helper.make_node("Softmax", ["x"], ["y"], axis=1)], {}, [1, 4, 6, 6]),
    "reflect_pad": ([helper.make_node("Pad", ["x", "pads"], ["y"], mode="reflect")],
                    {"pads": np.array([0, 0, 1, 0, 0, 0, 0, 1], np.int64)}, [1, 4, 7, 7]),
    "attributed_pads": ([helper.make_node("Pad", ["x"], ["p"], pads=[0, 0, 1, 1, 0, 0, 1, 1],
                                          value=0.5),
                         helper.make_node("Pad", ["p"], ["y"], pads=[0, 0, 1, 0, 0, 0, 0, 1],
                                          mode="edge")], {}, [1, 4, 9, 9], 10),
    "thresholded_relu": ([helper.make_node("ThresholdedRelu", ["x"], ["y"], alpha=0.2)], {},
                         [1, 4, 6, 6]),
    "thresholded_relu_of_an_op": ([helper.make_node("Sigmoid", ["x"], ["s"]),
                                   helper.make_node("ThresholdedRelu", ["s"], ["y"], alpha=0.5)],
                                  {}, [1, 4, 6, 6]),  # a ConvertLike resolved after inference
    "one_hot_counting_from_the_end": (
        [helper.make_node("ArgMax", ["x"], ["am"], axis=1, keepdims=0),
         helper.make_node("Add", ["am", "minus_two"], ["idx"]),
         helper.make_node("OneHot", ["idx", "depth", "values"], ["y"], axis=1)],
        {"minus_two": np.int64(-2), "depth": np.int64(4), "values": np.array([0, 1], np.float32)},
        [1, 4, 6, 6]),  # OneHot-16 normalizing the negative indices, as ovc writes it
    "instance_norm": ([helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"])],
                      {"s": np.float32([1, 2, 3, 4]), "b": np.float32([0, 1, 0, -1])},
                      [1, 4, 6, 6]),
    "instance_norm_of_an_op": (  # x's rank unknown when translated
        [helper.make_node("Relu", ["x"], ["r"]),
         helper.make_node("InstanceNormalization", ["r", "s", "b"], ["y"], epsilon=1e-3)],
        {"s": np.float32([1, 2, 3, 4]), "b": np.float32([0, 1, 0, -1])}, [1, 4, 6, 6]),
    "quantize_dequantize_u8": (
        [helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"]),
         helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["y"])],
        {"scale": np.float32(0.05), "zero": np.uint8(0)}, [1, 4, 6, 6]),
    "quantize_dequantize_i8_around_three": (
        [helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"]),
         helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["y"])],
        {"scale": np.float32(0.02), "zero": np.int8(3)}, [1, 4, 6, 6]),
    "quantize_dequantize_per_channel": (
        [helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"], axis=1),
         helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["d"], axis=1),
         helper.make_node("Relu", ["d"], ["y"])],
        {"scale": np.float32([0.01, 0.02, 0.03, 0.04]), "zero": np.int8([0, 1, -2, 3])},
        [1, 4, 6, 6]),
    "divide_by_constants": ([helper.make_node("Div", ["x", "c"], ["d"]),
                             helper.make_node("Div", ["d", "v"], ["y"])],
                            {"c": np.float32(0.7), "v": np.float32([[[1.5]], [[2]], [[3]], [[4]]])},
                            [1, 4, 6, 6]),  # Multiplies by the reciprocals
    "convolution_divided": ([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                             helper.make_node("Div", ["c", "two"], ["y"])],
                            {"w": _WEIGHTS.astype(np.float32) / 8, "two": np.float32(2)},
                            [1, 4, 6, 6]),  # the division folds into the weights
    "negative": ([helper.make_node("Relu", ["x"], ["r"]),
                  helper.make_node("Neg", ["r"], ["y"])], {}, [1, 4, 6, 6]),  # x * -1
    "integer_divide_stays": (
        [helper.make_node("Cast", ["x"], ["i"], to=7),
         helper.make_node("Div", ["i", "three"], ["d"]),
         helper.make_node("Cast", ["d"], ["y"], to=1)], {"three": np.int64(3)}, [1, 4, 6, 6]),
    "weights_dequantized_around_zero": (
        [helper.make_node("DequantizeLinear", ["wq", "scale", "zero"], ["w"]),
         helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
        {"wq": _WEIGHTS, "scale": np.float32(0.05), "zero": np.int8(0)}, [1, 4, 6, 6]),
    "weights_dequantized_around_two": (
        [helper.make_node("DequantizeLinear", ["wq", "scale", "zero"], ["w"]),
         helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
        {"wq": _WEIGHTS, "scale": np.float32(0.05), "zero": np.int8(2)}, [1, 4, 6, 6]),
    "quantized_then_scaled": (  # a quantized model: ovc compresses no float constant
        [helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"]),
         helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["d"]),
         helper.make_node("Mul", ["d", "k"], ["m"]), helper.make_node("Add", ["m", "v"], ["y"])],
        {"scale": np.float32(0.05), "zero": np.uint8(3), "k": np.float32(1.5),
         "v": np.float32([1, 2, 3, 4]).reshape(1, 4, 1, 1)}, [1, 4, 6, 6]),
    "int8_weights_then_scaled": (
        [helper.make_node("DequantizeLinear", ["wq", "scale", "zero"], ["w"]),
         helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Mul", ["c", "k"], ["m"]), helper.make_node("Add", ["m", "v"], ["y"])],
        {"wq": _WEIGHTS, "scale": np.float32(0.05), "zero": np.int8(0), "k": np.float32(1.5),
         "v": np.float32([1, 2, 3, 4]).reshape(1, 4, 1, 1)}, [1, 4, 6, 6]),
    # ONNX's experimental ops of opsets 1-9, which older exporters wrote
    "image_scaler": ([helper.make_node("ImageScaler", ["x"], ["y"], scale=2.0,
                                       bias=[0.1, 0.2, 0.3, 0.4])], {}, [1, 4, 6, 6], 9),
    "affine": ([helper.make_node("Affine", ["x"], ["y"], alpha=2.0, beta=0.5)], {},
               [1, 4, 6, 6], 9),
    "crop_border": ([helper.make_node("Crop", ["x"], ["y"], border=[1, 0, 2, 3])], {},
                    [1, 4, 3, 3], 9),
    "crop_to_scale": ([helper.make_node("Crop", ["x"], ["y"], border=[1, 2, 0, 0], scale=[3, 4])],
                      {}, [1, 4, 3, 4], 9),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_ir_holds_ovc_s_ops(tmp_path: Path, name: str) -> None:
    assert_ovc_form(onnx_model(tmp_path / f"{name}.onnx", *CASES[name]), tmp_path)


@pytest.mark.parametrize("name", ["image_scaler", "affine", "divide_by_constants",
                                  "quantized_then_scaled", "int8_weights_then_scaled"])
def test_fp16_compression_is_ovc_s(tmp_path: Path, name: str) -> None:
    """A float model's constants go to f16, single values too; a quantized model's (a
    FakeQuantize, or int8 weights) all stay f32, as ovc leaves them."""
    assert_ovc_form(onnx_model(tmp_path / f"{name}.onnx", *CASES[name]), tmp_path, fp16=True)


def test_a_per_channel_quantize_dequantize_keeps_f32_bounds_under_fp16(tmp_path: Path) -> None:
    """With weights compressed to f16 (ovc's default), the fused FakeQuantize's bounds stay
    f32, as in ovc's IR: f16 bounds moved the outputs by 1e-3."""
    model = onnx_model(tmp_path / "qdq.onnx", *CASES["quantize_dequantize_per_channel"])
    assert_ovc_form(model, tmp_path, fp16=True)


@pytest.mark.parametrize("name", ["image_scaler", "affine", "crop_border", "crop_to_scale"])
def test_experimental_ops_run_in_the_shim(tmp_path: Path, name: str) -> None:
    """extgen's own engine computes ONNX's old experimental ops as their definitions say."""
    import onnx

    from converter.onnx_backend import ExtgenBackend
    from tests.ovc_forms import X

    model = onnx.load(onnx_model(tmp_path / f"{name}.onnx", *CASES[name]))
    expected = {"image_scaler": 2 * X + np.float32([0.1, 0.2, 0.3, 0.4]).reshape(1, 4, 1, 1),
                "affine": 2 * X + 0.5, "crop_border": X[:, :, 0:3, 1:4],
                "crop_to_scale": X[:, :, 2:5, 1:5]}[name]
    (got,) = ExtgenBackend.prepare(model, engine="shim").run([X])
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_a_crop_without_its_border_is_one_line(tmp_path: Path) -> None:
    from converter.errors import ConversionError
    from converter.options import ConvertOptions
    from converter.pipeline import convert

    model = onnx_model(tmp_path / "crop.onnx", [helper.make_node("Crop", ["x"], ["y"])], {},
                       [1, 4, 6, 6], 9)
    with pytest.raises(ConversionError, match="needs `border` of 4 values") as err:
        convert(ConvertOptions(model, output_dir=tmp_path / "ir"))
    assert "\n" not in str(err.value)
