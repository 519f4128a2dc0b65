#!/usr/bin/env python3
"""Write the example model: a small CNN whose activation is a custom op, org.example::Cosh
(scale * cosh(x)), that no converter knows, as ONNX (cosh_net.onnx) and as a TensorFlow frozen
graph computing the same function (cosh_net.pb, NHWC, custom op type ScaledCosh, as a library
loaded with tf.load_op_library would add). Also writes the input and
a reference output computed by onnxruntime on the same net with ONNX's standard Cosh op.

Usage: make_model.py OUTDIR"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SCALE = 0.5


def _weights() -> dict[str, np.ndarray]:
    """Random weights that float16 holds exactly: `extgen convert` stores weights as f16 by
    default (as MO and ovc do), and the IR then computes what the reference computes."""
    rng = np.random.default_rng(0)
    weights = {
        "w": rng.standard_normal((4, 3, 3, 3)) * 0.3,
        "b": np.zeros(4),
        "fc": rng.standard_normal((4 * 4 * 4, 5)) * 0.2,
    }
    return {k: v.astype(np.float16).astype(np.float32) for k, v in weights.items()}


def build(custom: bool) -> onnx.ModelProto:
    weights = _weights()
    if custom:
        act = [helper.make_node("Cosh", ["c"], ["a"], name="cosh", domain="org.example",
                                scale=SCALE)]
    else:
        act = [helper.make_node("Cosh", ["c"], ["h"], name="cosh"),
               helper.make_node("Mul", ["h", "half"], ["a"], name="scale")]
        weights["half"] = np.array(SCALE, np.float32)
    nodes = [
        helper.make_node("Conv", ["image", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        *act,
        helper.make_node("MaxPool", ["a"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("MatMul", ["f", "fc"], ["logits"], name="fc"),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "cosh_net",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 5])],
        [numpy_helper.from_array(v, k) for k, v in weights.items()],
    )
    opsets = [helper.make_opsetid("", 17)]
    if custom:
        opsets.append(helper.make_opsetid("org.example", 1))
    return helper.make_model(graph, opset_imports=opsets, ir_version=8)


def build_tf(path: Path) -> None:
    """The same net as a TF GraphDef: NHWC data, HWIO filters, and the FC weights reordered
    for TF's NHWC flatten."""
    from converter.front.tf.writer import GraphBuilder

    w = _weights()
    g = GraphBuilder()
    x = g.placeholder("image", [1, 8, 8, 3])
    conv = g.node("Conv2D", "conv", [x, g.const("w", w["w"].transpose(2, 3, 1, 0))],
                  strides=[1, 1, 1, 1], padding="SAME", data_format="NHWC", T=np.dtype(np.float32))
    conv = g.node("BiasAdd", "bias", [conv, g.const("b", w["b"])], T=np.dtype(np.float32))
    act = g.node("ScaledCosh", "cosh", [conv], scale=SCALE, T=np.dtype(np.float32))
    pool = g.node("MaxPool", "pool", [act], ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                  padding="VALID", data_format="NHWC", T=np.dtype(np.float32))
    flat = g.node("Reshape", "flatten", [pool, g.const("shape", np.array([1, 64], np.int32))])
    fc = w["fc"].reshape(4, 4, 4, 5).transpose(1, 2, 0, 3).reshape(64, 5)
    logits = g.node("MatMul", "fc", [flat, g.const("fc_w", fc)], T=np.dtype(np.float32))
    g.node("Softmax", "probs", [logits], T=np.dtype(np.float32))
    g.save(path)


def main(out: Path) -> None:
    import onnxruntime as ort

    out.mkdir(parents=True, exist_ok=True)
    onnx.save(build(custom=True), out / "cosh_net.onnx")
    build_tf(out / "cosh_net.pb")
    image = np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype(np.float32)
    np.save(out / "image.npy", image)
    session = ort.InferenceSession(build(custom=False).SerializeToString())
    np.save(out / "reference.npy", session.run(None, {"image": image})[0])
    print(f"wrote {out / 'cosh_net.onnx'}, cosh_net.pb, image.npy and reference.npy "
          "(onnxruntime, standard Cosh)")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
