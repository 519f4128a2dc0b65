"""Per-channel linear ops fold into weights before fp16 compression (converter/back/
linear_fusion.py), as ovc and MO fold them: the IR holds what ovc's holds and its fp16 error is
ovc's, and the results stay the model's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
from onnx import TensorProto, helper, numpy_helper

from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine

RNG = np.random.default_rng(7)


def _init(name: str, value: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value, np.float32), name)


def _model(tmp_path: Path, nodes: list, inits: list, x_shape: list[int],
           y_shape: list[int]) -> Path:
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)], initializer=inits)
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def _bn(prefix: str, channels: int) -> list[onnx.TensorProto]:
    return [_init(f"{prefix}_g", RNG.uniform(0.5, 1.5, channels)),
            _init(f"{prefix}_b", RNG.normal(0, 0.1, channels)),
            _init(f"{prefix}_m", RNG.normal(0, 0.5, channels)),
            _init(f"{prefix}_v", RNG.uniform(0.5, 1.5, channels))]


def _bn_ref(x: np.ndarray, g, b, m, v) -> np.ndarray:
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - m.reshape(shape)) / np.sqrt(v.reshape(shape) + 1e-5) * g.reshape(shape) \
        + b.reshape(shape)


def _conv(x: np.ndarray, w: np.ndarray, groups: int = 1) -> np.ndarray:
    """A stride-1, unpadded convolution in float64, written out."""
    n, c, h, wd = x.shape
    o, per, kh, kw = w.shape
    out = np.zeros((n, o, h - kh + 1, wd - kw + 1))
    for oc in range(o):
        g = oc // (o // groups)
        for i in range(kh):
            for j in range(kw):
                patch = x[:, g * per:(g + 1) * per, i:i + out.shape[2], j:j + out.shape[3]]
                out[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, i, j])
    return out


def _ir(path: Path, tmp_path: Path, fp16: bool = False) -> tuple[Path, dict[str, int]]:
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "ir",
                                 compress_to_fp16=fp16)).xml
    ops: dict[str, int] = {}
    for op in ov.Core().read_model(str(xml)).get_ordered_ops():
        ops[op.get_type_name()] = ops.get(op.get_type_name(), 0) + 1
    return xml, ops


def _outputs(xml: Path, x: np.ndarray) -> list[np.ndarray]:
    return [next(iter(open_engine(engine, xml, "CPU").run({"x": x}).values()))
            for engine in ("shim", "openvino")]


@pytest.mark.parametrize("groups", [1, 4])
def test_conv_batch_norm_scale_shift_become_one_convolution_and_a_bias(tmp_path, groups) -> None:
    w = RNG.normal(0, 0.3, (8, 8 // groups, 3, 3))
    stats = _bn("bn", 8)
    mul, add = RNG.uniform(0.5, 2, (1, 8, 1, 1)), RNG.normal(0, 1, (1, 8, 1, 1))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], group=groups),
             helper.make_node("BatchNormalization", ["c", *(t.name for t in stats)], ["n"]),
             helper.make_node("Mul", ["n", "s"], ["m"]), helper.make_node("Add", ["m", "t"], ["y"])]
    path = _model(tmp_path, nodes, [_init("w", w), *stats, _init("s", mul), _init("t", add)],
                  [1, 8, 6, 6], [1, 8, 4, 4])
    xml, ops = _ir(path, tmp_path)
    conv = "Convolution" if groups == 1 else "GroupConvolution"
    assert ops.get(conv) == 1 and ops.get("Add") == 1
    assert "BatchNormInference" not in ops and "Multiply" not in ops
    x = RNG.normal(size=(1, 8, 6, 6)).astype(np.float32)
    values = [numpy_helper.to_array(t).astype(np.float64) for t in stats]
    want = _bn_ref(_conv(x.astype(np.float64), w, groups), *values) * mul + add
    for got in _outputs(xml, x):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_a_batch_norm_before_an_activation_becomes_a_scale_and_shift(tmp_path) -> None:
    stats = _bn("bn", 4)
    nodes = [helper.make_node("BatchNormalization", ["x", *(t.name for t in stats)], ["n"]),
             helper.make_node("Relu", ["n"], ["y"])]
    xml, ops = _ir(_model(tmp_path, nodes, stats, [2, 4, 3, 3], [2, 4, 3, 3]), tmp_path)
    assert ops.get("Multiply") == 1 and ops.get("Add") == 1 and "BatchNormInference" not in ops
    x = RNG.normal(size=(2, 4, 3, 3)).astype(np.float32)
    want = np.maximum(_bn_ref(x.astype(np.float64),
                              *(numpy_helper.to_array(t) for t in stats)), 0)
    for got in _outputs(xml, x):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("trans_b", [0, 1])
def test_a_column_scale_after_a_matmul_goes_into_its_weights(tmp_path, trans_b) -> None:
    w = RNG.normal(size=(6, 5) if trans_b else (5, 6))
    scale = RNG.uniform(0.5, 2, 6)
    nodes = [helper.make_node("Gemm", ["x", "w"], ["g"], transB=trans_b),
             helper.make_node("Mul", ["g", "s"], ["y"])]
    path = _model(tmp_path, nodes, [_init("w", w), _init("s", scale)], [3, 5], [3, 6])
    xml, ops = _ir(path, tmp_path)
    assert ops.get("MatMul") == 1 and "Multiply" not in ops
    assert xml.read_text().count('type="Const"') == 1  # the unscaled weights are gone
    x = RNG.normal(size=(3, 5)).astype(np.float32)
    want = x.astype(np.float64) @ (w.T if trans_b else w) * scale
    for got in _outputs(xml, x):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_shared_weights_and_a_spatial_scale_are_left_alone(tmp_path) -> None:
    """Two convolutions share one weight: the scaled one gets its own copy. A Multiply whose
    constant varies over H and W cannot go into the weights and stays."""
    w = RNG.normal(0, 0.3, (2, 2, 1, 1))
    per_channel, spatial = RNG.uniform(0.5, 2, (1, 2, 1, 1)), RNG.uniform(0.5, 2, (1, 1, 3, 3))
    nodes = [helper.make_node("Conv", ["x", "w"], ["a"]),
             helper.make_node("Conv", ["x", "w"], ["b"]),
             helper.make_node("Mul", ["a", "s"], ["as"]),
             helper.make_node("Mul", ["b", "p"], ["bs"]),
             helper.make_node("Add", ["as", "bs"], ["y"])]
    inits = [_init("w", w), _init("s", per_channel), _init("p", spatial)]
    xml, ops = _ir(_model(tmp_path, nodes, inits, [1, 2, 3, 3], [1, 2, 3, 3]), tmp_path)
    assert ops.get("Convolution") == 2 and ops.get("Multiply") == 1
    assert xml.read_text().count('type="Const"') == 3  # w, its scaled copy, the spatial scale
    x = RNG.normal(size=(1, 2, 3, 3)).astype(np.float32)
    conv = _conv(x.astype(np.float64), w)
    for got in _outputs(xml, x):
        np.testing.assert_allclose(got, conv * per_channel + conv * spatial, rtol=1e-5,
                                   atol=1e-5)


@pytest.mark.parametrize(("fp16", "f16_consts"), [(True, 2), (False, 0)])
def test_error_of_conv_batch_norm_is_ovc_s(tmp_path, fp16, f16_consts) -> None:
    """Weights scaled by the batch norm in f32, then rounded once: with either setting of
    compress_to_fp16, our IR's error against the exact result is ovc's with the same setting
    (within 10%), with as many f16 constants."""
    w = RNG.normal(0, 0.2, (16, 16, 3, 3))
    stats = [_init("g", RNG.uniform(0.5, 1.5, 16)), _init("b", RNG.normal(0, 0.1, 16)),
             _init("m", RNG.normal(3.0, 0.5, 16)), _init("v", RNG.uniform(1e-3, 1e-2, 16))]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]),
             helper.make_node("BatchNormalization", ["c", "g", "b", "m", "v"], ["y"])]
    path = _model(tmp_path, nodes, [_init("w", w), *stats], [1, 16, 8, 8], [1, 16, 6, 6])
    xml, _ = _ir(path, tmp_path, fp16=fp16)
    theirs = tmp_path / "ovc.xml"
    ov.save_model(ov.convert_model(str(path)), theirs, compress_to_fp16=fp16)
    x = RNG.normal(size=(1, 16, 8, 8)).astype(np.float32)
    want = _bn_ref(_conv(x.astype(np.float64), w), *(numpy_helper.to_array(t) for t in stats))
    config = {"INFERENCE_PRECISION_HINT": "f32"}
    errors = [np.abs(ov.Core().compile_model(str(p), "CPU", config)(x)[0] - want).max()
              for p in (xml, theirs)]
    assert errors[0] <= 1.1 * errors[1] + 1e-5
    assert [p.read_text().count('element_type="f16"') for p in (xml, theirs)] == [f16_consts] * 2
