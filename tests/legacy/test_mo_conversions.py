"""MO 2023.3's own front/middle transformations, copied unmodified from its wheel into an
extension folder (with the MO extractors that make the ops they replace), convert a model that
triggers them; the IR runs in OpenVINO and matches onnxruntime (or numpy) within 1e-4."""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import openvino as ov
import pytest
from onnx import TensorProto, helper

from converter.front.tf.writer import GraphBuilder
from converter.options import ConvertOptions
from converter.pipeline import convert
from tests.conftest import make_model
from tests.front.test_caffe import write_model
from tests.legacy.mo_corpus import PREFIX, corpus

F = TensorProto.FLOAT
RNG = np.random.default_rng(7)
X4 = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)


def f32(*v: float) -> np.ndarray:
    return np.array(v if len(v) != 1 else v[0], np.float32)


@dataclass
class Case:
    files: tuple[str, ...]  # MO modules copied (the last defines the class named by the key)
    nodes: list  # the model: ONNX nodes over "x" -> "y"
    fused: str  # what the IR holds only when the transformation ran
    inits: dict = field(default_factory=dict)
    x: np.ndarray = field(default_factory=lambda: X4)
    opset: int = 17
    reference: object = None  # numpy function of x when onnxruntime lacks the op
    dims: list | None = None  # the model's input dims, when not x's shape
    tf: object = None  # builds a TensorFlow GraphDef over placeholder "x" instead (nodes unused)
    caffe: str = ""  # or a Caffe .prototxt over input "x" with top "y" (no weights)


def n(op: str, ins: list[str], outs: list[str], **attrs) -> onnx.NodeProto:
    return helper.make_node(op, ins, outs, **attrs)


CASES = {
    "GeLUMergerTanh": Case(("front/GeLUMerger_Tanh.py",), [
        n("Pow", ["x", "three"], ["p"]), n("Mul", ["p", "k"], ["m"]), n("Add", ["x", "m"], ["a"]),
        n("Mul", ["a", "c"], ["m0"]), n("Tanh", ["m0"], ["t"]), n("Add", ["t", "one"], ["a0"]),
        n("Mul", ["a0", "half"], ["m1"]), n("Mul", ["m1", "x"], ["y"])],
        'type="Gelu"', {"three": f32(3), "k": f32(0.044715), "c": f32(np.sqrt(2 / np.pi)),
                        "one": f32(1), "half": f32(0.5)}),
    "GeLUMergerErf": Case(("front/GeLUMerger_Erf.py",), [
        n("Mul", ["x", "half"], ["m"]), n("Div", ["x", "s2"], ["d"]), n("Erf", ["d"], ["e"]),
        n("Add", ["e", "one"], ["a"]), n("Mul", ["m", "a"], ["y"])],
        'type="Gelu"', {"half": f32(0.5), "s2": f32(np.sqrt(2)), "one": f32(1)}),
    "HSwishWithMinMax": Case(("front/HSwish_fusion.py",), [
        n("Add", ["x", "three"], ["a"]), n("Max", ["a", "zero"], ["mx"]),
        n("Min", ["mx", "six"], ["mn"]), n("Mul", ["x", "mn"], ["m"]),
        n("Mul", ["m", "sixth"], ["y"])],
        'type="HSwish"', {"three": f32(3), "zero": f32(0), "six": f32(6), "sixth": f32(1 / 6)}),
    "HSwishWithClamp": Case(("front/HSwish_fusion.py",), [
        n("Add", ["x", "three"], ["a"]), n("Clip", ["a", "zero", "six"], ["c"]),
        n("Mul", ["x", "c"], ["m"]), n("Mul", ["m", "sixth"], ["y"])],
        'type="HSwish"', {"three": f32(3), "zero": f32(0), "six": f32(6), "sixth": f32(1 / 6)}),
    "SoftmaxFromKeras": Case(("front/softmax.py",), [
        n("ReduceMax", ["x", "ax"], ["mx"], keepdims=1), n("Sub", ["x", "mx"], ["s"]),
        n("Exp", ["s"], ["e"]), n("ReduceSum", ["e", "ax2"], ["sm"], keepdims=1),
        n("Div", ["e", "sm"], ["y"])], 'type="SoftMax"',
        {"ax": np.array([3]), "ax2": np.array([3])}, opset=18),
    "LeakyReLUFusion": Case(("middle/LeakyReluPattern.py",), [
        n("Mul", ["x", "a"], ["m"]), n("Max", ["x", "m"], ["y"])], 'type="PReLU"',
        {"a": f32(0.2)}),
    "L2NormToNorm": Case(("middle/L2NormFusing.py",), [
        n("Pow", ["x", "two"], ["sq"]), n("ReduceSum", ["sq", "ax"], ["s"], keepdims=1),
        n("Max", ["s", "eps"], ["mx"]), n("Pow", ["mx", "mhalf"], ["r"]),
        n("Mul", ["x", "r"], ["y"])], 'type="NormalizeL2"',
        {"two": f32(2), "ax": np.array([1]), "eps": f32(1e-12), "mhalf": f32(-0.5)}),
    "SoftmaxONNXFrontReplacer": Case(
        ("front/onnx/softmax_ext.py", "front/onnx/softmaxONNX_to_softmax.py"),
        [n("Softmax", ["x"], ["y"], axis=2)], 'type="Reshape"', opset=11),
    "MvnOnnxToMvn": Case(
        ("front/onnx/mean_variance_normalization_ext.py", "front/onnx/MvnOnnxToMvn.py"),
        [n("MeanVarianceNormalization", ["x"], ["y"], axes=[0, 2, 3])], 'type="MVN"'),
    "NormalizeL2Normalize": Case(
        ("front/onnx/lp_normalization_ext.py", "front/onnx/normalize_l2_normalize.py"),
        [n("LpNormalization", ["x"], ["y"], axis=1, p=2)], 'type="NormalizeL2"'),
    "OneHotNormalize": Case(("front/onnx/one_hot_ext.py", "front/onnx/one_hot_normalize.py"),
                             [n("Cast", ["x"], ["i"], to=TensorProto.INT64),
                              n("OneHot", ["i", "depth", "vals"], ["y"], axis=-1)],
                             'type="OneHot"', {"depth": np.array(5), "vals": f32(-1, 2)},
                             x=RNG.integers(0, 5, (2, 3)).astype(np.float32)),
    "ONNXPadToPad": Case(("front/onnx/pad_ext.py", "front/onnx/pad_converter.py"),
                         [n("Pad", ["x", "pads", "v"], ["y"], mode="constant")], 'type="Pad"',
                         {"pads": np.array([0, 0, 1, 2, 0, 1, 0, 3]), "v": f32(1.5)}),
    "ConstantOfShapeToBroadcast": Case(
        ("front/onnx/constant_of_shape_ext.py", "front/onnx/constant_of_shape_to_broadcast.py"),
        [n("Shape", ["x"], ["s"]), n("ConstantOfShape", ["s"], ["c"],
                                     value=helper.make_tensor("v", F, [1], [2.5])),
         n("Add", ["x", "c"], ["y"])], 'type="Broadcast"', dims=["N", 3, 4, 5]),
    "ImageScaler": Case(("front/onnx/image_scaler_ext.py", "front/image_scaler.py"),
                        [n("ImageScaler", ["x"], ["y"], scale=0.5, bias=[1.0, 2.0, 3.0])],
                        'type="Multiply"', opset=9,
                        reference=lambda x: 0.5 * x + np.array([1, 2, 3], np.float32)[:, None,
                                                                                         None]),
    "LogSoftmaxONNXFrontReplacer": Case(
        ("front/onnx/softmax_ext.py", "front/onnx/logsoftmaxONNX_to_logsoftmax.py"),
        [n("LogSoftmax", ["x"], ["y"], axis=2)], 'type="LogSoftmax"', opset=11),
    "ScatterNormalizer": Case(("front/onnx/scatter_ext.py", "front/scatter_normalizer.py"),
                              [n("ScatterElements", ["x", "i", "u"], ["y"], axis=1)],
                              'type="ScatterElementsUpdate"',
                              {"i": np.array([[[[2]], [[0]]]] * 2), "u": np.ones((2, 2, 1, 1),
                                                                                 np.float32)}),
    "SqueezeNormalize": Case(("front/onnx/squeeze_ext.py", "front/SqueezeNormalize.py"),
                             [n("Squeeze", ["x"], ["y"], axes=[3])], 'type="Squeeze"',
                             x=RNG.standard_normal((2, 1, 3, 1, 5)).astype(np.float32), opset=11),
    "TopKNormalize": Case(("front/onnx/top_k_ext.py", "front/TopKNormalize.py"),
                          [n("TopK", ["x"], ["y", "idx"], axis=3, k=2)], 'type="TopK"', opset=9),
    "EltwiseNReplacement": Case(("front/onnx/elementwise_ext.py", "front/eltwise_n.py"), [
        n("Sum", ["x", "a", "b"], ["s"]), n("Max", ["s", "x", "a"], ["m"]),
        n("Min", ["m", "b", "x"], ["y"])], 'type="Minimum"',
        {"a": f32(0.5), "b": RNG.standard_normal((1, 3, 1, 5)).astype(np.float32)}),
    "ClipByValueTFTransformation": Case(
        ("front/tf/ClipByValue_ext.py", "front/tf/ClipByValueTFTransformation.py"), [],
        'type="Minimum"', tf=lambda g, x: g.node("ClipByValue", "y", [
            x, g.const("lo", f32(-0.5, 0, -1, 0.2, -2)), g.const("hi", f32(0.7))], T=np.float32),
        reference=lambda x: np.maximum(np.minimum(x, f32(0.7)), f32(-0.5, 0, -1, 0.2, -2))),
    "ReshapeDimNormalizer": Case(("front/onnx/reshape_ext.py", "front/reshape_dim_normalizer.py"),
                                 [n("Reshape", ["x"], ["y"], shape=[6, 20])], 'type="Reshape"',
                                 opset=4, reference=lambda x: x.reshape(6, 20)),
    "AttributedSliceToSliceReplacer": Case(
        ("front/onnx/slice_ext.py", "front/onnx/AttributedSliceToSlice.py"),
        [n("Slice", ["x"], ["y"], starts=[1, 0], ends=[3, -1], axes=[1, 3])], 'type="Slice"',
        opset=9, reference=lambda x: x[:, 1:3, :, 0:-1]),
    "MVNCaffeToMVN": Case(("front/caffe/mvn_ext.py", "front/caffe/MVNCaffeToMVN.py"), [],
                          'type="MVN"', caffe="""
input: "x"
input_shape { dim: 2 dim: 3 dim: 4 dim: 5 }
layer { name: "y" type: "MVN" bottom: "x" top: "y" mvn_param { eps: 0.001 } }
""", reference=lambda x: (x - x.mean((2, 3), keepdims=True))
        / np.sqrt(x.var((2, 3), keepdims=True) + 1e-3)),
    "FillToBroadcast": Case(("front/onnx/constant_fill_ext.py", "front/FillToBroadcast.py"), [
        n("Shape", ["x"], ["s"]), n("ConstantFill", ["s"], ["c"], value=2.5, input_as_shape=1),
        n("Add", ["x", "c"], ["y"])], 'type="Broadcast"', opset=9, reference=lambda x: x + 2.5,
        dims=["N", 3, 4, 5]),
}


def _folder(tmp_path: Path, files: tuple[str, ...]) -> Path:
    package = corpus() / PREFIX
    for rel in files:
        dst = tmp_path / "ext" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(package / rel, dst)
    return tmp_path / "ext"


@pytest.mark.parametrize("name", list(CASES))
def test_mo_transformation_converts_unmodified(tmp_path: Path, name: str, caplog) -> None:
    case = CASES[name]
    if case.caffe:
        path = write_model(tmp_path, name, case.caffe, {})
    elif case.tf is not None:
        g = GraphBuilder()
        case.tf(g, g.placeholder("x", list(case.x.shape)))
        path = g.save(tmp_path / f"{name}.pb")
    else:
        inputs = [("x", F, case.dims or list(case.x.shape))]
        model = make_model(case.nodes, inputs, [("y", F, None)], case.inits, opset=case.opset)
        path = tmp_path / f"{name}.onnx"
        onnx.save(model, path)
    ext = _folder(tmp_path, case.files)
    with caplog.at_level(logging.DEBUG, logger="extgen.convert"):
        xml = convert(ConvertOptions(path, output_dir=tmp_path / "ir", extensions=[ext])).xml
    module = Path(case.files[-1]).stem
    assert any(f".{module}.{name} " in f"{r.getMessage()} " for r in caplog.records), "not run"
    assert case.fused in xml.read_text(), f"{name} did not change the graph"
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    got = compiled([case.x])[compiled.output(0)]
    if case.reference is not None:
        want = case.reference(case.x)
    else:
        want = ort.InferenceSession(model.SerializeToString()).run(None, {"x": case.x})[0]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
