"""ConstantLast: torch's Add(bias, MatMul(x, W)) and Mul(scale, y) get the constant second, so
the shim's plan fuses the bias, the GELU after it and a scale into the MatMul; the result
still matches onnxruntime."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto
from onnx import helper as h

from converter.ir.reader import read_ir
from converter.options import ConvertOptions
from converter.pipeline import convert
from converter.runtime.cpu import CpuDevice
from converter.runtime.executor import Executor
from tests.conftest import make_model

RNG = np.random.default_rng(5)


def test_constant_first_add_and_multiply_fuse_after_a_matmul(tmp_path: Path) -> None:
    nodes = [
        h.make_node("MatMul", ["x", "w"], ["m"]), h.make_node("Add", ["b", "m"], ["u"]),
        h.make_node("Div", ["u", "s2"], ["d"]), h.make_node("Erf", ["d"], ["e"]),
        h.make_node("Add", ["e", "one"], ["a"]), h.make_node("Mul", ["u", "a"], ["g"]),
        h.make_node("Mul", ["g", "half"], ["v"]),
        h.make_node("MatMul", ["v", "w2"], ["n"]), h.make_node("Add", ["b2", "n"], ["z"]),
        h.make_node("Mul", ["gamma", "z"], ["y"]),
        h.make_node("Add", ["b2", "b2"], ["k"]),  # constant + constant: folded, not swapped
        h.make_node("Add", ["y", "k"], ["out"]),
    ]
    inits = {"w": RNG.standard_normal((8, 16)).astype(np.float32),
             "b": RNG.standard_normal(16).astype(np.float32),
             "w2": RNG.standard_normal((16, 8)).astype(np.float32),
             "b2": RNG.standard_normal(8).astype(np.float32),
             "gamma": RNG.standard_normal(8).astype(np.float32),
             "s2": np.float32(math.sqrt(2)), "one": np.float32(1), "half": np.float32(0.5)}
    model = make_model(nodes, [("x", TensorProto.FLOAT, [2, 5, 8])],
                       [("out", TensorProto.FLOAT, None)], inits)
    onnx.save(model, tmp_path / "m.onnx")
    xml = convert(ConvertOptions(tmp_path / "m.onnx", output_dir=tmp_path / "ir")).xml
    executor = Executor(read_ir(xml), [CpuDevice([])])
    fused = [(step.layer.type, step.fused) for step in executor.steps if step.fused]
    # the second MatMul's Add, Multiply and Add are folded into its weights and one bias
    # (converter/back/linear_fusion.py) before the shim fuses that bias
    assert fused == [("MatMul", ["Add", "Gelu"]), ("MatMul", ["Add"])]
    x = RNG.standard_normal((2, 5, 8)).astype(np.float32)
    want = ort.InferenceSession(str(tmp_path / "m.onnx")).run(None, {"x": x})[0]
    for _ in range(2):  # in place on fresh arrays: a second run gives the same
        got = next(iter(executor.run({executor.input_names[0]: x}).values()))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
