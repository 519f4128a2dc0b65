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
from tests.front import kaldi_writer as kw
from tests.front.test_caffe import write_model as write_caffe
from tests.front.test_kaldi import _nnet3_components
from tests.front.test_mxnet import Net
from tests.legacy.mo_pass_onnx import FLAGS, ONNX_MODELS, write_onnx
from tests.legacy.mo_pass_tf import TF_MODELS

RNG = np.random.default_rng()  # seeded for each model (write_models)
F32 = np.float32


@dataclass
class Model:
    name: str
    framework: str
    path: Path
    flags: list[str] = field(default_factory=list)  # MO's command line beyond the model

    def options(self) -> dict:
        """ConvertOptions fields for what `flags` asks."""
        found = {}
        if "--input_shape" in self.flags:
            text = self.flags[self.flags.index("--input_shape") + 1]
            found["input_shape"] = [[int(d) for d in text.strip("[]").split(",")]]
        if "--batch" in self.flags:
            found["batch"] = int(self.flags[self.flags.index("--batch") + 1])
        return found

    def mo_flags(self) -> list[str]:
        """MO's command line: its legacy (Python) pipeline, where extensions run; f32 weights."""
        legacy = ["--use_legacy_frontend"] if self.framework in ("onnx", "tf") else []
        return [*self.flags, *legacy, "--framework", self.framework, "--compress_to_fp16=False"]


def _w(*shape: int) -> np.ndarray:
    return (RNG.standard_normal(shape) * 0.3).astype(np.float32)


def _tf(folder: Path, name: str) -> Model:
    g = GraphBuilder()
    TF_MODELS[name](g, _w)
    return Model(name, "tf", g.save(folder / f"{name}.pb"))


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


_CAFFE_LAYERS = """
input: "x"
input_shape { dim: 1 dim: 4 dim: 6 dim: 6 }
layer { name: "pool" type: "Pooling" bottom: "x" top: "p"
  pooling_param { pool: AVE global_pooling: true } }
layer { name: "axpy" type: "Axpy" bottom: "p" bottom: "x" bottom: "x" top: "ax" }
layer { name: "relu" type: "ReLU" bottom: "ax" top: "r" }
layer { name: "sum" type: "Eltwise" bottom: "ax" bottom: "r" top: "e"
  eltwise_param { operation: SUM coeff: 0.5 coeff: -1 } }
layer { name: "power" type: "Power" bottom: "e" top: "pw"
  power_param { power: 2 scale: 0.5 shift: 1 } }
layer { name: "elu" type: "ELU" bottom: "pw" top: "el" }
layer { name: "prelu" type: "PReLU" bottom: "el" top: "pr" }
layer { name: "norm" type: "Normalize" bottom: "pr" top: "nm"
  norm_param { across_spatial: false channel_shared: false } }
layer { name: "shuffle" type: "ShuffleChannel" bottom: "nm" top: "sh"
  shuffle_channel_param { group: 2 } }
layer { name: "lrn" type: "LRN" bottom: "sh" top: "lr" lrn_param { local_size: 3 } }
layer { name: "slice" type: "Slice" bottom: "lr" top: "a" top: "b"
  slice_param { axis: 3 slice_point: 3 } }
layer { name: "cat" type: "Concat" bottom: "b" bottom: "a" top: "cc" concat_param { axis: 3 } }
layer { name: "deconv" type: "Deconvolution" bottom: "cc" top: "dc"
  convolution_param { num_output: 2 kernel_size: 2 stride: 2 } }
layer { name: "reshape" type: "Reshape" bottom: "dc" top: "rs"
  reshape_param { shape { dim: 0 dim: -1 dim: 12 } } }
layer { name: "tile" type: "Tile" bottom: "rs" top: "tl" tile_param { axis: 1 tiles: 2 } }
layer { name: "permute" type: "Permute" bottom: "tl" top: "pm"
  permute_param { order: 0 order: 2 order: 1 } }
layer { name: "y" type: "Flatten" bottom: "pm" top: "y" }
"""


def _caffe_layers(folder: Path, name: str) -> Model:
    weights = {"prelu": [np.abs(_w(4))], "norm": [np.abs(_w(4)) + 1],
               "deconv": [_w(4, 2, 2, 2), _w(2)]}
    return Model(name, "caffe", write_caffe(folder, name, _CAFFE_LAYERS, weights))


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


def _mxnet_ops(folder: Path, name: str) -> Model:
    """Scalar arithmetic, ELU and leaky ReLU, L2Normalization, LRN, Pad, SwapAxis, a split
    concatenated in reverse, softmax and Reshape."""
    net = Net()
    y = net.sym.var("data")
    for op, scalar in (("_plus_scalar", 1.0), ("_mul_scalar", 2.0), ("_minus_scalar", 0.5),
                       ("_div_scalar", 4.0), ("_maximum_scalar", 0.0)):
        y = net.op(op, op, [y], scalar=scalar)
    y = net.op("LeakyReLU", "elu", [y], act_type="elu", slope=0.3)
    y = net.op("LeakyReLU", "leaky", [y], act_type="leaky", slope=0.1)
    y = net.op("LRN", "lrn", [net.op("L2Normalization", "l2", [y], mode="channel")], nsize=3)
    y = net.op("Pad", "pad", [y], mode="constant", pad_width=(0, 0, 0, 0, 1, 1, 1, 1),
               constant_value=0.5)
    halves = net.op("SliceChannel", "split", [net.op("SwapAxis", "swap", [y], dim1=2, dim2=3)],
                    num_outputs=2, axis=1)
    y = net.op("softmax", "softmax", [net.op("Concat", "cat", [(halves, 1), (halves, 0)], dim=1)],
               axis=1)
    y = net.op("Reshape", "y", [y], shape=(0, -1))
    return Model(name, "mxnet", net.save(folder, name, [y]), ["--input_shape", "[1,4,6,6]"])


def _mxnet_index(folder: Path, name: str) -> Model:
    """batch_dot, tile, an _arange added, and take."""
    net = Net()
    x = net.sym.var("data")
    y = net.op("tile", "tile", [net.op("batch_dot", "bd", [x, x], transpose_b=True)],
               reps=(1, 1, 2))
    y = net.op("broadcast_add", "add", [y, net.op("_arange", "range", [], start=0, stop=6)])
    idx = net.weight("idx", np.array([[0, 2], [1, 5]], np.float32))
    y = net.op("take", "y", [y, idx], axis=2)
    return Model(name, "mxnet", net.save(folder, name, [y]), ["--input_shape", "[2,3,4]"])


def _mxnet_more(folder: Path, name: str) -> Model:
    """Embedding, slice and _eye."""
    net = Net()
    emb = net.op("Embedding", "emb", [net.sym.var("data"), net.weight("emb_weight", _w(5, 4))],
                 input_dim=5, output_dim=4)
    cut = net.op("slice", "slice", [emb], begin=(0, 1, 0), end=(2, 3, 4))
    y = net.op("broadcast_add", "y", [cut, net.op("_eye", "eye", [], N=2, M=4, k=1)])
    return Model(name, "mxnet", net.save(folder, name, [y]), ["--input_shape", "[2,3]"])


def _mxnet_cumsum(folder: Path, name: str) -> Model:
    """NumPy's cumsum (`_np_cumsum`), which MO's front pass made a CumSum."""
    net = Net()
    y = net.op("_np_cumsum", "y", [net.sym.var("data")], axis=1)
    return Model(name, "mxnet", net.save(folder, name, [y]), ["--input_shape", "[1,4,6,6]"])


def _mxnet_layernorm(folder: Path, name: str) -> Model:
    """LayerNorm over the channels, which MO's middle pass made an MVN, a Mul and an Add."""
    net = Net()
    y = net.op("LayerNorm", "y", [net.sym.var("data"), net.weight("gamma", _w(4)),
                                  net.weight("beta", _w(4))], axis=1, eps=1e-5)
    return Model(name, "mxnet", net.save(folder, name, [y]), ["--input_shape", "[1,4,6,6]"])


def _mxnet_roll(folder: Path, name: str) -> Model:
    """numpy's roll along an axis (`_np_roll`), which MO's front pass made a Roll."""
    net = Net()
    y = net.op("_np_roll", "y", [net.sym.var("data")], shift=(2,), axis=(3,))
    return Model(name, "mxnet", net.save(folder, name, [y]), ["--input_shape", "[1,4,6,6]"])


def _kaldi(folder: Path, name: str) -> Model:
    (path := folder / f"{name}.raw").write_bytes(kn.nnet3_chain(_nnet3_components(), 10, True))
    return Model(name, "kaldi", path)


def _onnx(folder: Path, name: str) -> Model:
    return Model(name, "onnx", write_onnx(folder, name, RNG), FLAGS.get(name, []))


def _kaldi_lstm(folder: Path, name: str) -> Model:
    (path := folder / f"{name}.raw").write_bytes(kn.lstm_net(True)[0])
    return Model(name, "kaldi", path)


def _kaldi_nnet1(folder: Path, name: str) -> Model:
    (path := folder / f"{name}.raw").write_bytes(kn.nnet1_net(True, mo=True)[0])
    return Model(name, "kaldi", path)


def _kaldi_nnet1_lstm(folder: Path, name: str) -> Model:
    (path := folder / f"{name}.raw").write_bytes(kn.nnet1_lstm_net(True)[0])
    return Model(name, "kaldi", path)


def _kaldi_crops(folder: Path, name: str) -> Model:
    """Dim ranges that rebuild their input, concatenated in order (MO's RemoveUselessCrops
    removes them, and extgen), between an affine and two fixed scales (MO fuses all three)."""
    comps = {"a": kn.affine(4, 4), "s": kn.fixed_scale(4), "t": kn.fixed_scale(4)}
    config = ["input-node name=input dim=4",
              "component-node name=a component=a input=input",
              "dim-range-node name=lo input-node=a dim-offset=0 dim=2",
              "dim-range-node name=hi input-node=a dim-offset=2 dim=2",
              "component-node name=s component=s input=Append(lo, hi)",
              "dim-range-node name=x0 input-node=s dim-offset=0 dim=1",
              "dim-range-node name=x1 input-node=s dim-offset=1 dim=3",
              "component-node name=t component=t input=Append(x0, x1)",
              "output-node name=output input=t objective=linear"]
    named = [(key, *comp[:2]) for key, comp in comps.items()]
    (path := folder / f"{name}.raw").write_bytes(kw.nnet3(config, named, True))
    return Model(name, "kaldi", path)


WRITERS: dict[str, Callable[[Path, str], Model]] = {
    **{name: _onnx for name in ONNX_MODELS},
    **{name: _tf for name in TF_MODELS},
    "caffe_cnn": _caffe, "caffe_misc": _caffe_misc,
    "caffe_layers": _caffe_layers, "mxnet_cnn": _mxnet,
    "mxnet_softmax": _mxnet_softmax, "mxnet_ops": _mxnet_ops,
    "mxnet_index": _mxnet_index, "mxnet_more": _mxnet_more, "mxnet_cumsum": _mxnet_cumsum,
    "mxnet_layernorm": _mxnet_layernorm, "mxnet_roll": _mxnet_roll,
    "kaldi_chain": _kaldi, "kaldi_lstm": _kaldi_lstm, "kaldi_nnet1": _kaldi_nnet1,
    "kaldi_nnet1_lstm": _kaldi_nnet1_lstm, "kaldi_crops": _kaldi_crops}


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
