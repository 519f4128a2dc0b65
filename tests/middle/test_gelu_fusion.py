"""GeluFusion: GELU written out in elementwise ops (torch's nn.GELU exports, Keras' and TF's
graphs, and every order of the factors that exporters write) becomes one Gelu layer; the IR
matches onnxruntime (or the formula) in OpenVINO and in the shim."""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import pytest
import torch
from onnx import TensorProto
from onnx import helper as h

from converter.front.tf.writer import GraphBuilder
from converter.ir.reader import read_ir
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.engines import open_engine
from tests.conftest import make_model
from tests.front.test_onnx_control_flow import check_against_onnxruntime

F = TensorProto.FLOAT
X = (np.random.default_rng(17).standard_normal((2, 3, 40)) * 3).astype(np.float32)
K = math.sqrt(2 / math.pi)


def _c(value: float) -> np.ndarray:
    return np.array(value, np.float32)


# name: (nodes over "x" -> "y", constants, the Gelu mode the IR must hold or None)
ORDERS = {
    "torch (x * (1 + erf(x / sqrt2))) * 0.5": ([
        h.make_node("Div", ["x", "s2"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
        h.make_node("Add", ["e", "one"], ["a"]), h.make_node("Mul", ["x", "a"], ["m"]),
        h.make_node("Mul", ["m", "half"], ["y"])], {}, "ERF"),
    "(0.5 * x) * (1 + erf(x * 0.7071))": ([
        h.make_node("Mul", ["half", "x"], ["hx"]), h.make_node("Mul", ["x", "r2"], ["d"]),
        h.make_node("Erf", ["d"], ["e"]), h.make_node("Add", ["one", "e"], ["a"]),
        h.make_node("Mul", ["hx", "a"], ["y"])], {}, "ERF"),
    "x * (0.5 * (1 + erf(x / sqrt2)))": ([
        h.make_node("Div", ["x", "s2"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
        h.make_node("Add", ["e", "one"], ["a"]), h.make_node("Mul", ["half", "a"], ["m"]),
        h.make_node("Mul", ["x", "m"], ["y"])], {}, "ERF"),
    "x * (0.5 + 0.5 * erf(x * 0.7071))": ([
        h.make_node("Mul", ["x", "r2"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
        h.make_node("Mul", ["e", "half"], ["m"]), h.make_node("Add", ["m", "half"], ["a"]),
        h.make_node("Mul", ["a", "x"], ["y"])], {}, "ERF"),
    "x * (1 + erf(x / sqrt2)) / 2": ([
        h.make_node("Div", ["x", "s2"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
        h.make_node("Add", ["e", "one"], ["a"]), h.make_node("Mul", ["x", "a"], ["m"]),
        h.make_node("Div", ["m", "two"], ["y"])], {}, "ERF"),
    "tanh, Pow(x, 3)": ([
        h.make_node("Pow", ["x", "three"], ["p"]), h.make_node("Mul", ["p", "k3"], ["m"]),
        h.make_node("Add", ["x", "m"], ["s"]), h.make_node("Mul", ["s", "k"], ["i"]),
        h.make_node("Tanh", ["i"], ["t"]), h.make_node("Add", ["t", "one"], ["a"]),
        h.make_node("Mul", ["a", "half"], ["m1"]), h.make_node("Mul", ["m1", "x"], ["y"])],
        {}, "TANH"),
    "tanh, k x + k 0.044715 x x x": ([
        h.make_node("Mul", ["x", "x"], ["x2"]), h.make_node("Mul", ["x2", "x"], ["x3"]),
        h.make_node("Mul", ["x3", "kk3"], ["m"]), h.make_node("Mul", ["x", "k"], ["kx"]),
        h.make_node("Add", ["kx", "m"], ["i"]), h.make_node("Tanh", ["i"], ["t"]),
        h.make_node("Add", ["one", "t"], ["a"]), h.make_node("Mul", ["x", "half"], ["hx"]),
        h.make_node("Mul", ["hx", "a"], ["y"])], {}, "TANH"),
    "not GELU: erf(x / 2)": ([
        h.make_node("Div", ["x", "two"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
        h.make_node("Add", ["e", "one"], ["a"]), h.make_node("Mul", ["x", "a"], ["m"]),
        h.make_node("Mul", ["m", "half"], ["y"])], {}, None),
    "not GELU: x * (1 + erf(x / sqrt2))": ([
        h.make_node("Div", ["x", "s2"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
        h.make_node("Add", ["e", "one"], ["a"]), h.make_node("Mul", ["x", "a"], ["y"])],
        {}, None),
    "not GELU: 0.5 broadcast to a larger shape": ([
        h.make_node("Div", ["x", "s2"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
        h.make_node("Add", ["e", "one"], ["a"]), h.make_node("Mul", ["x", "a"], ["m"]),
        h.make_node("Mul", ["m", "halves"], ["y"])],
        {"halves": np.full((2, 1, 1, 1), 0.5, np.float32)}, None),
    "not GELU: a per-channel scale": ([
        h.make_node("Div", ["x", "s2"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
        h.make_node("Add", ["e", "one"], ["a"]), h.make_node("Mul", ["x", "a"], ["m"]),
        h.make_node("Mul", ["m", "scale"], ["y"])],
        {"scale": np.float32([0.5, 0.5, 0.25]).reshape(3, 1)}, None),
}
CONSTANTS = {"s2": _c(math.sqrt(2)), "r2": _c(math.sqrt(0.5)), "one": _c(1), "half": _c(0.5),
             "two": _c(2), "three": _c(3), "k": _c(K), "k3": _c(0.044715),
             "kk3": _c(0.044715 * K)}


def _layers(xml: Path) -> list[str]:
    return [layer.type for layer in read_ir(xml).layers.values()]


def _check(tmp_path: Path, model: onnx.ModelProto, mode: str | None) -> None:
    check_against_onnxruntime(tmp_path, model, {"x": X})
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir")).xml
    layers = _layers(xml)
    if mode is None:
        assert "Gelu" not in layers and "Erf" in layers
        return
    assert layers.count("Gelu") == 1 and not {"Erf", "Tanh", "Multiply"} & set(layers), layers
    assert f'approximation_mode="{mode}"' in xml.read_text()


@pytest.mark.parametrize("name", list(ORDERS))
def test_written_out_gelu_becomes_one_layer(tmp_path: Path, name: str) -> None:
    nodes, extra, mode = ORDERS[name]
    used = {i for n in nodes for i in n.input} - {"x"}
    inits = {k: v for k, v in {**CONSTANTS, **extra}.items() if k in used}
    model = make_model(nodes, [("x", F, list(X.shape))], [("y", F, None)], inits)
    _check(tmp_path, model, mode)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_torch_gelu_export(tmp_path: Path, approximate: str) -> None:
    module = torch.nn.Sequential(torch.nn.Linear(40, 40), torch.nn.GELU(approximate=approximate))
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(17)
        torch.onnx.export(module.eval(), (torch.from_numpy(X),), buffer, dynamo=False,
                          opset_version=17, input_names=["x"], output_names=["y"])
    model = onnx.load_from_string(buffer.getvalue())
    assert "Gelu" not in {n.op_type for n in model.graph.node}  # written out at opset 17
    _check(tmp_path, model, "ERF" if approximate == "none" else "TANH")


def _tf_keras(g: GraphBuilder, x: str) -> str:
    """Keras' gelu(approximate=False): 0.5 * x * (1 + erf(x / sqrt(2))), RealDiv and AddV2."""
    t = {"T": np.float32}
    erf = g.node("Erf", "erf", [g.node("RealDiv", "d", [x, g.const("s2", _c(math.sqrt(2)))], **t)],
                 **t)
    one = g.node("AddV2", "a", [g.const("one", _c(1)), erf], **t)
    return g.node("Mul", "y", [g.node("Mul", "hx", [g.const("half", _c(0.5)), x], **t), one], **t)


def _tf_tanh(g: GraphBuilder, x: str) -> str:
    """TF's gelu(approximate=True): 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3)))."""
    t = {"T": np.float32}
    cube = g.node("Pow", "p", [x, g.const("three", _c(3))], **t)
    inner = g.node("AddV2", "s", [x, g.node("Mul", "m", [g.const("k3", _c(0.044715)), cube], **t)],
                   **t)
    th = g.node("Tanh", "t", [g.node("Mul", "i", [g.const("k", _c(K)), inner], **t)], **t)
    half_x = g.node("Mul", "hx", [g.const("half", _c(0.5)), x], **t)
    return g.node("Mul", "y", [half_x, g.node("AddV2", "a", [g.const("one", _c(1)), th], **t)],
                  **t)


@pytest.mark.parametrize(("build", "mode"), [(_tf_keras, "ERF"), (_tf_tanh, "TANH")])
def test_tensorflow_gelu(tmp_path: Path, build, mode: str) -> None:
    g = GraphBuilder()
    build(g, g.placeholder("x", list(X.shape)))
    xml = convert(ConvertOptions(g.save(tmp_path / "m.pb"), output_dir=tmp_path / "ir")).xml
    assert _layers(xml).count("Gelu") == 1 and not {"Erf", "Tanh"} & set(_layers(xml))
    assert f'approximation_mode="{mode}"' in xml.read_text()
    v = X.astype(np.float64)
    if mode == "ERF":
        want = np.array([w * 0.5 * math.erfc(-w / math.sqrt(2)) for w in v.reshape(-1)])
    else:
        want = 0.5 * v * (1 + np.tanh(K * (v + 0.044715 * v**3)))
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    shim = open_engine("shim", xml)
    for got in (compiled([X])[compiled.output(0)], next(iter(shim.run({"x": X}).values()))):
        np.testing.assert_allclose(got, want.reshape(X.shape), rtol=1e-5, atol=1e-5)
