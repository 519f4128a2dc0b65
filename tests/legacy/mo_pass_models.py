"""Small models, a few per framework, on which MO 2023.3's own pass modules are tried one at a
time (tests/legacy/mo_pass_runs.py): common CNN and arithmetic patterns, cheap to convert."""

from __future__ import annotations

import contextlib
import functools
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
from tests.legacy.mo_pass_onnx import ONNX_MODELS, write_onnx

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


def _tf_shapes(g: GraphBuilder) -> None:
    """IdentityN, a ConcatV2 of one input, Pack, Split, SplitV, Tile, Roll, Squeeze and a NoOp
    control input."""
    x = g.placeholder("x", [1, 4, 6])
    e = g.node("ConcatV2", "one", [g.node("Exp", "e", [x], T=F32), g.const("ax", np.int32(1))],
               T=F32, N=1)
    g.node("IdentityN", "idn", [x, e], T=[F32, F32])
    a = g.node("AddV2", "a", ["idn", "idn:1"], T=F32)
    p = g.node("Pack", "pack", [a, e], T=F32, N=2, axis=1)
    g.node("Split", "s", [g.const("sax", np.int32(3)), p], T=F32, num_split=2)
    g.node("SplitV", "sv", ["s:1", g.const("sz", np.array([1, 1], np.int32)),
                            g.const("sax2", np.int32(1))], T=F32, num_split=2, Tlen=np.int32)
    t = g.node("Tile", "tile", ["sv", g.const("m", np.array([1, 1, 1, 2], np.int32))], T=F32,
               Tmultiples=np.int32)
    r = g.node("Roll", "roll", [t, g.const("sh", np.array([1], np.int32)),
                                g.const("rax", np.array([2], np.int32))],
               T=F32, Tshift=np.int32, Taxis=np.int32)
    q = g.node("Squeeze", "sq", [r], T=F32, squeeze_dims=[1])
    g.node("NoOp", "nop", [])
    i = g.node("Identity", "id", [q, "^nop"], T=F32)
    g.node("Mul", "y", [i, a], T=F32)
    g.node("Exp", "y2", ["s"], T=F32)
    g.node("Exp", "y3", ["sv:1"], T=F32)


def _tf_select(g: GraphBuilder) -> None:
    """Where, ArgMax, OneHot, ClipByValue, SelectV2, Cumsum, Bucketize and Fill."""
    x = g.placeholder("x", [1, 4, 6])
    gt = g.node("Greater", "gt", [x, g.const("z", F32(0))], T=F32)
    g.node("Where", "where", [gt], T=np.bool_)
    am = g.node("ArgMax", "argmax", [x, g.const("a", np.int32(2))], T=F32, Tidx=np.int32,
                output_type=np.int32)
    g.node("OneHot", "onehot", [am, g.const("d", np.int32(6)), g.const("on", F32(1)),
                                g.const("off", F32(0))], T=F32, TI=np.int32, axis=-1)
    c = g.node("ClipByValue", "clip", [x, g.const("lo", F32(-0.5)), g.const("hi", F32(0.5))],
               T=F32)
    sl = g.node("SelectV2", "sel", [gt, c, g.const("o", F32(0.1))], T=F32)
    g.node("Cumsum", "cumsum", [sl, g.const("ca", np.int32(1))], T=F32, Tidx=np.int32,
           exclusive=False, reverse=False)
    g.node("Bucketize", "bucket", [x], T=F32, boundaries=[-0.5, 0.0, 0.5])
    f = g.node("Fill", "fill", [g.const("dims", np.array([1, 4, 6], np.int32)),
                                g.const("v", F32(0.5))], T=F32, index_type=np.int32)
    g.node("Mul", "mulf", [x, f], T=F32)


def _tf_spatial(g: GraphBuilder) -> None:
    """SpaceToBatchND, BatchToSpaceND, Conv2DBackpropInput, a depthwise conv and AvgPool."""
    x = g.placeholder("x", [1, 4, 4, 3])
    zeros = np.zeros((2, 2), np.int32)
    s = g.node("SpaceToBatchND", "s2b", [x, g.const("bs", np.array([2, 2], np.int32)),
                                         g.const("pd", zeros)],
               T=F32, Tblock_shape=np.int32, Tpaddings=np.int32)
    e = g.node("Relu", "relu", [s], T=F32)
    b = g.node("BatchToSpaceND", "b2s", [e, g.const("bs2", np.array([2, 2], np.int32)),
                                         g.const("cr", zeros)],
               T=F32, Tblock_shape=np.int32, Tcrops=np.int32)
    d = g.node("Conv2DBackpropInput", "deconv", [g.const("os", np.array([1, 8, 8, 2], np.int32)),
                                                 g.const("w", _w(3, 3, 2, 3)), b],
               T=F32, strides=[1, 2, 2, 1], padding=b"SAME", data_format=b"NHWC")
    dw = g.node("DepthwiseConv2dNative", "dw", [d, g.const("dww", _w(3, 3, 2, 2))], T=F32,
                strides=[1, 1, 1, 1], padding=b"VALID", data_format=b"NHWC",
                dilations=[1, 1, 1, 1])
    g.node("AvgPool", "y", [dw], T=F32, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
           padding=b"VALID", data_format=b"NHWC")


def _tf_norms(g: GraphBuilder) -> None:
    """Einsum and BatchMatMulV2, then MVN unrolled as tf.nn.moments writes it."""
    x = g.placeholder("x", [2, 4, 3])
    e = g.node("Einsum", "ein", [x, g.const("b", _w(2, 3, 5))], T=F32,
               equation=b"bij,bjk->bik", N=2)
    bm = g.node("BatchMatMulV2", "bmm", [e, g.const("b2", _w(2, 6, 5))], T=F32, adj_x=False,
                adj_y=True)
    r = g.node("Reshape", "rs4", [bm, g.const("s4", np.array([1, 2, 4, 6], np.int32))], T=F32)
    axes = np.array([1, 2], np.int32)
    mean = g.node("Mean", "mean", [r, g.const("ax", axes)], T=F32, keep_dims=True)
    sd = g.node("SquaredDifference", "sd", [r, g.node("StopGradient", "sg", [mean], T=F32)],
                T=F32)
    v = g.node("Mean", "var", [sd, g.const("ax2", axes)], T=F32, keep_dims=True)
    sub = g.node("Sub", "sub", [r, mean], T=F32)
    rs = g.node("Rsqrt", "rs", [g.node("AddV2", "ve", [v, g.const("eps", F32(1e-3))], T=F32)],
                T=F32)
    g.node("Mul", "y", [sub, rs], T=F32)


def _tf_pads(g: GraphBuilder) -> None:
    """Pad, PadV2 and MirrorPad, then a Squeeze and a product with a Range."""
    x = g.placeholder("x", [1, 4, 1, 3])
    pads = g.const("p", np.array([[0, 0], [1, 1], [0, 0], [1, 0]], np.int32))
    y = g.node("Pad", "pad", [x, pads], T=F32)
    y = g.node("PadV2", "pad2", [y, pads, g.const("v", F32(0.5))], T=F32)
    y = g.node("MirrorPad", "mirror", [y, pads], T=F32, mode=b"REFLECT")
    y = g.node("Squeeze", "sq", [y], T=F32, squeeze_dims=[2])
    r = g.node("Range", "range", [g.const("start", F32(0)), g.const("limit", F32(6)),
                                  g.const("delta", F32(1))], Tidx=F32)
    g.node("Mul", "y", [y, r], T=F32)


def _tf_more(g: GraphBuilder) -> None:
    """Concat (axis first), FakeQuantWithMinMaxVars, Log1p, FloorDiv, Reciprocal, PReLU as
    TF writes it, two Transposes, a Split into one, an ellipsis StridedSlice, a Keras-style
    flatten (Reshape to [batch, -1]), SparseToDense and ScatterNd."""
    i32 = functools.partial(np.array, dtype=np.int32)
    x = g.placeholder("x", [1, 4, 4, 3])
    e = g.node("Exp", "e", [x], T=F32)
    c = g.node("Concat", "concat", [g.const("cax", np.int32(3)), x, e], T=F32, N=2)
    q = g.node("FakeQuantWithMinMaxVars", "fq", [c, g.const("lo", F32(-1)), g.const("hi", F32(1))],
               num_bits=8, narrow_range=False)
    lp = g.node("Log1p", "log1p", [g.node("Abs", "abs", [q], T=F32)], T=F32)
    fd = g.node("FloorDiv", "floordiv", [lp, g.const("d", F32(0.3))], T=F32)
    rc = g.node("Reciprocal", "recip", [g.node("AddV2", "plus1", [fd, g.const("one", F32(1))],
                                                T=F32)], T=F32)
    neg = g.node("Sub", "neg_part", [rc, g.node("Abs", "abs2", [rc], T=F32)], T=F32)
    m = g.node("Mul", "alpha_mul", [g.const("alpha", _w(6)), neg], T=F32)
    pr = g.node("AddV2", "prelu", [g.node("Relu", "relu", [rc], T=F32),
                                   g.node("Mul", "half_mul", [m, g.const("half", F32(0.5))],
                                          T=F32)], T=F32)
    t = g.node("Transpose", "t1", [pr, g.const("p1", i32([0, 2, 1, 3]))], T=F32)
    t = g.node("Transpose", "t2", [t, g.const("p2", i32([0, 1, 3, 2]))], T=F32)
    s = g.node("Split", "split1", [g.const("sax", np.int32(3)), t], T=F32, num_split=1)
    masks = dict(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0)
    ss = g.node("StridedSlice", "ellipsis", [s, g.const("b", i32([0, 1])),
                                             g.const("en", i32([0, 3])),
                                             g.const("st", i32([1, 1]))],
                T=F32, Index=np.int32, **{**masks, "ellipsis_mask": 1}, shrink_axis_mask=0)
    shape = g.node("Shape", "shape", [ss], T=F32, out_type=np.int32)
    batch = g.node("StridedSlice", "batch", [shape, g.const("b0", i32([0])),
                                             g.const("e0", i32([1])), g.const("s0", i32([1]))],
                   T=np.int32, Index=np.int32, **masks, shrink_axis_mask=1)
    pack = g.node("Pack", "pack", [batch, g.const("m1", np.int32(-1))], T=np.int32, N=2, axis=0)
    flat = g.node("Reshape", "flatten", [ss, pack], T=F32)
    dense = g.node("SparseToDense", "dense", [g.const("idx", i32([[0, 1], [0, 30]])),
                                              g.const("dshp", i32([1, 48])),
                                              g.const("dv", F32([1.5, -2])),
                                              g.const("ddef", F32(0.25))],
                   T=F32, Tindices=np.int32, validate_indices=True)
    g.node("Mul", "y", [flat, dense], T=F32)
    snd = g.node("ScatterNd", "scatter", [g.const("sidx", i32([[1], [3]])),
                                          g.const("supd", _w(2, 48)),
                                          g.const("sshp", i32([4, 48]))], T=F32, Tindices=np.int32)
    g.node("AddV2", "y2", [flat, snd], T=F32)


def _tf_index(g: GraphBuilder) -> None:
    """TopKV2 with both outputs read, a Slice of sizes given, and an Einsum of NHWC images."""
    x = g.placeholder("x", [1, 6, 6, 4])
    g.node("TopKV2", "t", [x, g.const("k", np.int32(2))], T=F32, sorted=True)
    g.node("Exp", "y", ["t"], T=F32)
    g.node("Cast", "y2", ["t:1"], SrcT=np.int32, DstT=F32)
    g.node("Slice", "y3", [x, g.const("b", np.array([0, 1, 2, 0], np.int32)),
                           g.const("s", np.array([1, 3, 2, 2], np.int32))], T=F32, Index=np.int32)
    g.node("Einsum", "y4", [x, x], T=F32, N=2, equation=b"abcd,abed->abce")


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


def _kaldi(folder: Path, name: str) -> Model:
    (path := folder / f"{name}.raw").write_bytes(kn.nnet3_chain(_nnet3_components(), 10, True))
    return Model(name, "kaldi", path)


def _onnx(folder: Path, name: str) -> Model:
    return Model(name, "onnx", write_onnx(folder, name, RNG))


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
    "tf_conv": _tf(_tf_conv), "tf_arith": _tf(_tf_arith), "tf_softmax": _tf(_tf_softmax),
    "tf_shapes": _tf(_tf_shapes), "tf_select": _tf(_tf_select), "tf_spatial": _tf(_tf_spatial),
    "tf_norms": _tf(_tf_norms), "tf_pads": _tf(_tf_pads), "tf_more": _tf(_tf_more),
    "tf_index": _tf(_tf_index),
    "caffe_cnn": _caffe, "caffe_misc": _caffe_misc,
    "caffe_layers": _caffe_layers, "mxnet_cnn": _mxnet,
    "mxnet_softmax": _mxnet_softmax, "mxnet_ops": _mxnet_ops,
    "mxnet_index": _mxnet_index, "mxnet_more": _mxnet_more, "mxnet_cumsum": _mxnet_cumsum,
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
