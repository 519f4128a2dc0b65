"""Small valid models of every framework, written with the project's own writers, for the fuzz
test to mutate (tests/test_fuzz_inputs.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from converter.front.mxnet.params import write_ndarray_file
from converter.front.mxnet.symbol import SymbolBuilder
from converter.front.tf.writer import GraphBuilder
from tests.conftest import make_model
from tests.front import kaldi_writer as kw
from tests.front.kaldi_writer import F
from tests.front.test_caffe import write_model

__all__ = ["CAFFE_PROTOTXT", "EXTGEN_CONFIG", "caffe_model", "kaldi_model", "mxnet_model",
           "onnx_model", "tf_model"]

F32 = np.float32
CAFFE_PROTOTXT = """name: "small"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 1 dim: 3 dim: 8 dim: 8 } } }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1 stride: 1 } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "prob" type: "Softmax" bottom: "pool" top: "prob" }
"""
# an `extgen new` config touching every section the validators check
EXTGEN_CONFIG = {
    "targets": ["mo-onnx-ext", "ie-vpu-ext"],
    "ops": [{
        "name": "Scaled", "framework_types": {"onnx": "my.domain::Scaled"},
        "inputs": [{"name": "x"}], "outputs": [{"name": "y"}],
        "attributes": [{"name": "gain", "type": "float", "default": 2.0}],
        "expression": "x * gain",
        "vpu": {"scalars": [{"name": "width", "source": "I.X"},
                            {"name": "g", "type": "float", "source": "gain"}]},
    }],
}


def onnx_model() -> onnx.ModelProto:
    """x[1,3,8,8] -> Conv -> Relu -> Transpose -> Add(b) -> Gather(const index) -> y."""
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Transpose", ["r"], ["t"], name="tr", perm=[0, 1, 3, 2]),
        helper.make_node("Add", ["t", "b"], ["a"], name="add"),
        helper.make_node("Gather", ["a", "i"], ["y"], name="gather", axis=1),
    ]
    inits = {"w": np.ones((4, 3, 3, 3), F32), "b": np.arange(4, dtype=F32).reshape(1, 4, 1, 1),
             "i": np.array([0, 2], np.int64)}
    return make_model(nodes, [("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                      [("y", TensorProto.FLOAT, None)], inits)


def tf_model(path: Path) -> Path:
    g = GraphBuilder()
    x = g.placeholder("x", [1, 4, 4, 2])
    w = g.const("w", np.ones((1, 1, 2, 2), F32))
    conv = g.node("Conv2D", "conv", [x, w], T=F32, strides=[1, 1, 1, 1], padding="SAME")
    g.node("Relu", "y", [conv], T=F32)
    return g.save(path)


def caffe_model(folder: Path) -> Path:
    rng = np.random.default_rng(0)
    weights = {"conv": [rng.standard_normal((4, 3, 3, 3)), np.zeros(4)]}
    return write_model(folder, "small", CAFFE_PROTOTXT, weights)


def mxnet_model(folder: Path) -> Path:
    sym = SymbolBuilder()
    x, w = sym.var("data"), sym.var("w")
    conv = sym.op("Convolution", "conv", [x, w], kernel="(3, 3)", num_filter="4", no_bias="True",
                  pad="(1, 1)")
    relu = sym.op("Activation", "relu", [conv], act_type="relu")
    sym.save(folder / "small-symbol.json", [relu])
    params = folder / "small-0000.params"
    write_ndarray_file(params, {"arg:w": np.ones((4, 3, 3, 3), F32)})
    return params


def kaldi_model(path: Path) -> Path:
    """A binary nnet1: AffineTransform 4 -> 3, Sigmoid."""
    w, b = np.full((3, 4), 0.5, F32), np.arange(3, dtype=F32)
    affine = ("AffineTransform", 3, 4, ["<LearnRateCoef>", F(1.0), "<BiasLearnRateCoef>", F(1.0),
                                        "<MaxNorm>", F(0.0), w, b])
    path.write_bytes(kw.nnet1([affine, ("Sigmoid", 3, 3, [])], binary=True))
    return path
