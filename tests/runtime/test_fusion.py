"""The shim's plan fuses a bias Add and an activation into the Convolution or MatMul before
them, in place, only where nothing else reads the intermediate tensor; a fused plan computes
what onnxruntime computes, run after run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter import pipeline
from converter.ir.reader import read_ir
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.cpu import CpuDevice
from converter.runtime.executor import Executor
from tests.conftest import make_model

RNG = np.random.default_rng(3)


def _model(tmp_path: Path) -> Path:
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),  # fused: Conv + bias + Relu
        helper.make_node("Conv", ["r", "w2"], ["d"]),
        helper.make_node("Clip", ["d", "lo", "hi"], ["e"]),  # not fused: d is read twice
        helper.make_node("Add", ["e", "d"], ["g"]),
        helper.make_node("Relu", ["g"], ["f"]),  # fused: the Add's output is fresh too
        helper.make_node("MaxPool", ["f"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["q"]),
        helper.make_node("MatMul", ["q", "m"], ["s"]),
        helper.make_node("Add", ["s", "mb"], ["y"]),  # fused: MatMul + bias
    ]
    inits = {
        "w": RNG.standard_normal((4, 3, 3, 3)).astype(np.float32),
        "b": RNG.standard_normal(4).astype(np.float32),
        "w2": RNG.standard_normal((5, 4, 1, 1)).astype(np.float32),
        "lo": np.float32(-1), "hi": np.float32(1),
        "m": RNG.standard_normal((5 * 4 * 4, 7)).astype(np.float32),
        "mb": RNG.standard_normal(7).astype(np.float32),
    }
    model = make_model(nodes, [("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                       [("y", TensorProto.FLOAT, [1, 7])], inits)
    onnx.save(model, tmp_path / "m.onnx")
    return tmp_path / "m.onnx"


def test_bias_and_activation_fuse_into_the_op_before_them(tmp_path: Path, either_path) -> None:
    path = _model(tmp_path)
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "ir")).xml
    executor = Executor(read_ir(xml), [CpuDevice([])])
    fused = {step.layer.type: step.fused for step in executor.steps if step.fused}
    assert fused["Convolution"] == ["Add", "ReLU"]
    assert fused["MatMul"] == ["Add"]
    assert fused["Add"] == ["ReLU"]
    assert "Clamp" in [step.layer.type for step in executor.steps]
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for _ in range(2):  # in-place epilogues must not touch anything a later run reads
        x = RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)
        expected = session.run(None, {"x": x})[0]
        got = executor.run({"x": x})["y"]
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def _affine_model(tmp_path: Path) -> Path:
    c = 4
    stats = {f"{name}{i}": RNG.uniform(0.5, 2, c).astype(np.float32) if name == "v" else
             RNG.standard_normal(c).astype(np.float32)
             for i in (1, 2) for name in ("g", "b", "m", "v")}
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "g1", "b1", "m1", "v1"], ["n"]),
        helper.make_node("Mul", ["n", "scale"], ["s"]),  # per channel: folds too
        helper.make_node("Add", ["s", "shift"], ["a"]),
        helper.make_node("Relu", ["a"], ["r"]),  # not affine: after the folded filters
        helper.make_node("Conv", ["r", "dw"], ["d"], group=c, pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("BatchNormalization", ["d", "g2", "b2", "m2", "v2"], ["e"]),
        helper.make_node("Add", ["e", "row"], ["y"]),  # varies along W: stays an epilogue
    ]
    inits = {
        "w": RNG.standard_normal((c, 3, 3, 3)).astype(np.float32),
        "scale": RNG.standard_normal((c, 1, 1)).astype(np.float32),
        "shift": RNG.standard_normal((1, c, 1, 1)).astype(np.float32),
        "dw": RNG.standard_normal((c, 1, 3, 3)).astype(np.float32),
        "row": RNG.standard_normal(4).astype(np.float32), **stats,
    }
    model = make_model(nodes, [("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                       [("y", TensorProto.FLOAT, [1, c, 4, 4])], inits)
    onnx.save(model, tmp_path / "affine.onnx")
    return tmp_path / "affine.onnx"


@pytest.fixture
def unfused(monkeypatch):
    """IR that keeps its per-channel layers, as IR from other tools holds them (our converter
    folds them into the weights before writing)."""
    monkeypatch.setattr(pipeline, "fuse_linear_ops", lambda graph: 0)


def test_per_channel_affine_layers_fold_into_the_convolution_filters(tmp_path: Path,
                                                                  either_path, unfused) -> None:
    path = _affine_model(tmp_path)
    xml = convert(ConvertOptions(path, output_dir=tmp_path / "ir")).xml
    executor = Executor(read_ir(xml), [CpuDevice([])])
    fused = {step.layer.type: step.fused for step in executor.steps if step.fused}
    assert fused["Convolution"] == ["BatchNormInference", "Multiply", "Add", "ReLU"]
    assert fused["GroupConvolution"] == ["BatchNormInference", "Add"]
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for _ in range(2):  # the folded filters are the layer's own copy: the IR's stay as they were
        x = RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)
        expected = session.run(None, {"x": x})[0]
        np.testing.assert_allclose(executor.run({"x": x})["y"], expected, rtol=1e-5, atol=1e-5)



def test_per_channel_affine_layers_fold_into_a_batch_norm_before_them(tmp_path: Path,
                                                                     either_path,
                                                                     unfused) -> None:
    c = 8  # DenseNet's pre-activation: Concat, then BatchNorm, Mul, Add (caffe2's scale), Relu
    nodes = [
        helper.make_node("Concat", ["x", "x"], ["j"], axis=1),
        helper.make_node("BatchNormalization", ["j", "g", "b", "m", "v"], ["n"]),
        helper.make_node("Mul", ["n", "scale"], ["s"]),
        helper.make_node("Add", ["s", "shift"], ["a"]),
        helper.make_node("Relu", ["a"], ["y"]),
    ]
    inits = {"g": RNG.standard_normal(c).astype(np.float32),
             "b": RNG.standard_normal(c).astype(np.float32),
             "m": RNG.standard_normal(c).astype(np.float32),
             "v": RNG.uniform(0.5, 2, c).astype(np.float32),
             "scale": RNG.standard_normal((c, 1, 1)).astype(np.float32),
             "shift": RNG.standard_normal((1, c, 1, 1)).astype(np.float32)}
    model = make_model(nodes, [("x", TensorProto.FLOAT, [1, c // 2, 5, 5])],
                       [("y", TensorProto.FLOAT, [1, c, 5, 5])], inits)
    onnx.save(model, tmp_path / "bn.onnx")
    xml = convert(ConvertOptions(tmp_path / "bn.onnx", output_dir=tmp_path / "ir")).xml
    executor = Executor(read_ir(xml), [CpuDevice([])])
    fused = {step.layer.type: step.fused for step in executor.steps if step.fused}
    assert fused["BatchNormInference"] == ["Multiply", "Add", "ReLU"]
    session = ort.InferenceSession(str(tmp_path / "bn.onnx"), providers=["CPUExecutionProvider"])
    for _ in range(2):
        x = RNG.standard_normal((1, c // 2, 5, 5)).astype(np.float32)
        expected = session.run(None, {"x": x})[0]
        np.testing.assert_allclose(executor.run({"x": x})["y"], expected, rtol=1e-5, atol=1e-5)

