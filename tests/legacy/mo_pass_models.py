"""Small models, a few per framework, on which MO 2023.3's own pass modules are tried one at a
time (tests/legacy/mo_pass_runs.py): common CNN and arithmetic patterns, cheap to convert."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from converter.front.tf.writer import GraphBuilder
from tests.front import kaldi_nets as kn
from tests.front.test_caffe import write_model as write_caffe
from tests.front.test_kaldi import _nnet3_components
from tests.front.test_mxnet import Net
from tests.legacy.mo_pass_onnx import ONNX_MODELS, write_onnx

RNG = np.random.default_rng()  # seeded for each model (write_models)


@dataclass
class Model:
    name: str
    framework: str
    path: Path
    flags: list[str] = field(default_factory=list)  # MO's command line beyond the model

    def options(self) -> dict:
        """ConvertOptions fields for what `flags` asks."""
        if "--input_shape" in self.flags:
            text = self.flags[self.flags.index("--input_shape") + 1]
            return {"input_shape": [[int(d) for d in text.strip("[]").split(",")]]}
        return {}

    def mo_flags(self) -> list[str]:
        """MO's command line: its legacy (Python) pipeline, where extensions run; f32 weights."""
        legacy = ["--use_legacy_frontend"] if self.framework in ("onnx", "tf") else []
        return [*self.flags, *legacy, "--framework", self.framework, "--compress_to_fp16=False"]


def _w(*shape: int) -> np.ndarray:
    return (RNG.standard_normal(shape) * 0.3).astype(np.float32)


def _tf_conv(g: GraphBuilder) -> None:
    x = g.placeholder("x", [1, 6, 6, 3])
    c = g.node("Conv2D", "conv", [x, g.const("w", _w(3, 3, 3, 4))], T=np.float32,
               strides=[1, 1, 1, 1], padding=b"SAME", data_format=b"NHWC")
    b = g.node("BiasAdd", "bias", [c, g.const("b", _w(4))], T=np.float32)
    r = g.node("Relu6", "relu6", [b], T=np.float32)
    p = g.node("MaxPool", "pool", [r], T=np.float32, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
               padding=b"VALID", data_format=b"NHWC")
    f = g.node("Reshape", "flat", [p, g.const("s", np.array([1, 36], np.int32))], T=np.float32)
    g.node("MatMul", "y", [f, g.const("fw", _w(36, 5))], T=np.float32)


def _tf_softmax(g: GraphBuilder) -> None:
    """Where MO's IR and ovc's part: MO writes Softmax as SoftMax-1, Sub as an Add of the
    negated input, RealDiv as a Multiply by Power(-1) and Square as Power."""
    x = g.placeholder("x", [1, 4, 4, 3])
    s = g.node("Sub", "sub", [x, g.const("one", np.float32(1))], T=np.float32)
    d = g.node("RealDiv", "div", [s, g.const("four", np.float32(4))], T=np.float32)
    q = g.node("Square", "square", [d], T=np.float32)
    g.node("Softmax", "y", [q], T=np.float32)


def _tf_arith(g: GraphBuilder) -> None:
    x = g.placeholder("x", [1, 4, 4, 3])
    s = g.node("AddV2", "add", [x, g.const("one", np.float32(1))], T=np.float32)
    m = g.node("Mul", "mul", [s, g.const("two", np.float32(2))], T=np.float32)
    t = g.node("Transpose", "transpose", [m, g.const("perm", np.array([0, 3, 1, 2], np.int32))],
               T=np.float32)
    mean = g.node("Mean", "mean", [t, g.const("axes", np.array([1], np.int32))], T=np.float32,
                  keep_dims=True)
    c = g.node("ConcatV2", "concat", [t, mean, g.const("axis", np.int32(1))], T=np.float32, N=2)
    sq = g.node("ExpandDims", "expand", [c, g.const("dim", np.int32(0))], T=np.float32)
    g.node("Squeeze", "y", [sq], T=np.float32, squeeze_dims=[0])


def _tf(build: Callable[[GraphBuilder], None]) -> Callable[[Path, str], Model]:
    def write(folder: Path, name: str) -> Model:
        g = GraphBuilder()
        build(g)
        return Model(name, "tf", g.save(folder / f"{name}.pb"))
    return write


_CAFFE = """
input: "x"
input_shape { dim: 1 dim: 3 dim: 6 dim: 6 }
layer { name: "conv" type: "Convolution" bottom: "x" top: "conv"
  convolution_param { num_output: 4 kernel_size: 3 pad: 1 } }
layer { name: "bn" type: "BatchNorm" bottom: "conv" top: "bn" }
layer { name: "scale" type: "Scale" bottom: "bn" top: "scale" scale_param { bias_term: true } }
layer { name: "relu" type: "ReLU" bottom: "scale" top: "relu" }
layer { name: "pool" type: "Pooling" bottom: "relu" top: "pool"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "fc" type: "InnerProduct" bottom: "pool" top: "fc"
  inner_product_param { num_output: 5 } }
layer { name: "y" type: "Softmax" bottom: "fc" top: "y" }
"""


def _caffe(folder: Path, name: str) -> Model:
    weights = {"conv": [_w(4, 3, 3, 3), _w(4)],
               "bn": [_w(4), np.abs(_w(4)) + 0.5, np.array([1.0], np.float32)],
               "scale": [_w(4) + 1, _w(4)], "fc": [_w(5, 36), _w(5)]}
    return Model(name, "caffe", write_caffe(folder, name, _CAFFE, weights))


_CAFFE_MISC = """
input: "x"
input_shape { dim: 1 dim: 4 dim: 6 dim: 6 }
layer { name: "mvn" type: "MVN" bottom: "x" top: "mvn" mvn_param { normalize_variance: true } }
layer { name: "slice" type: "Slice" bottom: "x" top: "a" top: "b"
  slice_param { axis: 1 slice_point: 2 } }
layer { name: "sum" type: "Eltwise" bottom: "a" bottom: "b" bottom: "a" top: "sum"
  eltwise_param { operation: SUM } }
layer { name: "cat" type: "Concat" bottom: "mvn" bottom: "sum" top: "cat" }
layer { name: "y" type: "ArgMax" bottom: "cat" top: "y" argmax_param { axis: 1 } }
"""


def _caffe_misc(folder: Path, name: str) -> Model:
    return Model(name, "caffe", write_caffe(folder, name, _CAFFE_MISC, {}))


def _mxnet(folder: Path, name: str) -> Model:
    net = Net()
    x = net.sym.var("data")
    c = net.op("Convolution", "conv", [x, net.weight("conv_weight", _w(4, 3, 3, 3)),
                                       net.weight("conv_bias", _w(4))],
               kernel=(3, 3), pad=(1, 1), num_filter=4)
    bn = net.op("BatchNorm", "bn", [c, net.weight("bn_gamma", _w(4) + 1),
                                    net.weight("bn_beta", _w(4)),
                                    net.weight("bn_moving_mean", _w(4), aux=True),
                                    net.weight("bn_moving_var", np.abs(_w(4)) + 0.5, aux=True)],
                eps=1e-3, fix_gamma=False)
    a = net.op("Activation", "relu", [bn], act_type="relu")
    p = net.op("Pooling", "pool", [a], kernel=(2, 2), stride=(2, 2), pool_type="max")
    f = net.op("Flatten", "flat", [p])
    fc = net.op("FullyConnected", "y", [f, net.weight("fc_weight", _w(5, 36)),
                                        net.weight("fc_bias", _w(5))], num_hidden=5)
    return Model(name, "mxnet", net.save(folder, name, [fc]), ["--input_shape", "[1,3,6,6]"])


def _mxnet_softmax(folder: Path, name: str) -> Model:
    """Where MO's IR and ovc's part: MO writes SoftMax-1, extgen Softmax-8 between Reshapes."""
    net = Net()
    sm = net.op("SoftmaxOutput", "y", [net.sym.var("data"), net.sym.var("y_label")])
    return Model(name, "mxnet", net.save(folder, name, [sm]), ["--input_shape", "[1,5]"])


def _kaldi(folder: Path, name: str) -> Model:
    (path := folder / f"{name}.raw").write_bytes(kn.nnet3_chain(_nnet3_components(), 10, True))
    return Model(name, "kaldi", path)


def _onnx(folder: Path, name: str) -> Model:
    return Model(name, "onnx", write_onnx(folder, name, RNG))


def _kaldi_lstm(folder: Path, name: str) -> Model:
    (path := folder / f"{name}.raw").write_bytes(kn.lstm_net(True)[0])
    return Model(name, "kaldi", path)


WRITERS: dict[str, Callable[[Path, str], Model]] = {
    **{name: _onnx for name in ONNX_MODELS},
    "tf_conv": _tf(_tf_conv), "tf_arith": _tf(_tf_arith), "tf_softmax": _tf(_tf_softmax),
    "caffe_cnn": _caffe, "caffe_misc": _caffe_misc, "mxnet_cnn": _mxnet,
    "mxnet_softmax": _mxnet_softmax,
    "kaldi_chain": _kaldi, "kaldi_lstm": _kaldi_lstm}


@contextlib.contextmanager
def _seeded(*generators: np.random.Generator) -> Iterator[None]:
    """The generators start from one seed (a model is the same whatever was written before;
    its recorded MO answer is keyed by its content), and go on as they were after."""
    saved = [g.bit_generator.state for g in generators]
    for g in generators:
        g.bit_generator.state = np.random.default_rng(31).bit_generator.state
    try:
        yield
    finally:
        for g, state in zip(generators, saved):
            g.bit_generator.state = state


def write_models(folder: Path) -> dict[str, list[Model]]:
    """framework -> its models, written into folder."""
    found: dict[str, list[Model]] = {}
    for name, write in WRITERS.items():
        with _seeded(RNG, kn.RNG):
            model = write(folder, name)
        found.setdefault(model.framework, []).append(model)
    return found
