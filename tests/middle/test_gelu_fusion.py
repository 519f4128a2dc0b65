"""GeluFusion: GELU written out in elementwise ops (torch's nn.GELU exports, and every order of
the factors that other exporters write) becomes one Gelu layer; the IR matches onnxruntime in
OpenVINO and in the shim."""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto
from onnx import helper as h

from converter.ir.reader import read_ir
from converter.options import ConvertOptions
from converter.pipeline import convert
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
