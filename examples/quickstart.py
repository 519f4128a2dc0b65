#!/usr/bin/env python3
"""The bundled end-to-end example: build a small CNN in ONNX, convert it with `extgen convert`,
run the IR in OpenVINO, and check it against onnxruntime. Writes everything to examples/out/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = Path(__file__).resolve().parent / "out"


def build_model(path: Path) -> None:
    rng = np.random.default_rng(0)
    w = lambda *s: numpy_helper.from_array((rng.standard_normal(s) * 0.2).astype(np.float32))  # noqa: E731
    inits = [w(8, 3, 3, 3), w(8), w(16, 8, 3, 3), w(16), w(10, 16 * 4 * 4), w(10)]
    for t, name in zip(inits, ["w1", "b1", "w2", "b2", "fc_w", "fc_b"]):
        t.name = name
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("MaxPool", ["r2"], ["p2"], name="pool2", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p2"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "quickstart_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])], inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def main() -> int:
    OUT.mkdir(exist_ok=True)
    model = OUT / "quickstart_cnn.onnx"
    build_model(model)
    print(f"1. built {model.relative_to(Path.cwd()) if model.is_relative_to(Path.cwd()) else model}")
    cmd = [str(Path(sys.executable).parent / "extgen"), "convert", "--input_model", str(model),
           "--output_dir", str(OUT / "ir")]
    print("2. " + " ".join(["extgen", *cmd[1:]]))
    subprocess.run(cmd, check=True)
    x = np.random.default_rng(1).standard_normal((1, 3, 16, 16)).astype(np.float32)

    import onnxruntime as ort
    import openvino as ov

    reference = ort.InferenceSession(str(model)).run(None, {"image": x})[0]
    from converter.runtime.engines import open_engine

    xml = OUT / "ir" / "quickstart_cnn.xml"
    compiled = ov.Core().compile_model(str(xml), "CPU")
    results = {
        "OpenVINO (our IR)": compiled([x])[compiled.output("probs")],
        "extgen shim": open_engine("shim", xml).run({"image": x})["probs"],
    }
    print("3. run the IR and compare with onnxruntime")
    print(f"   {'engine':24} {'device':6} {'max abs diff':>12}  result")
    ok = True
    for engine, got in results.items():
        err = float(np.abs(got - reference).max())
        ok &= err < 1e-5
        print(f"   {engine:24} {'CPU':6} {err:12.2e}  {'OK' if err < 1e-5 else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
