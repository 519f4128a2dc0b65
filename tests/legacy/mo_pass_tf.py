"""The TensorFlow models of MO's pass corpus (tests/legacy/mo_pass_models.py): frozen graphs of
common CNN, arithmetic, shape, selection and control patterns."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from converter.front.tf.writer import GraphBuilder

F32 = np.float32


def _tf_conv(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
    x = g.placeholder("x", [1, 6, 6, 3])
    c = g.node("Conv2D", "conv", [x, g.const("w", w(3, 3, 3, 4))], T=np.float32,
               strides=[1, 1, 1, 1], padding=b"SAME", data_format=b"NHWC")
    b = g.node("BiasAdd", "bias", [c, g.const("b", w(4))], T=np.float32)
    r = g.node("Relu6", "relu6", [b], T=np.float32)
    p = g.node("MaxPool", "pool", [r], T=np.float32, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
               padding=b"VALID", data_format=b"NHWC")
    f = g.node("Reshape", "flat", [p, g.const("s", np.array([1, 36], np.int32))], T=np.float32)
    g.node("MatMul", "y", [f, g.const("fw", w(36, 5))], T=np.float32)


def _tf_softmax(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
    """Where MO's IR and ovc's part: MO writes Softmax as SoftMax-1, Sub as an Add of the
    negated input, RealDiv as a Multiply by Power(-1) and Square as Power."""
    x = g.placeholder("x", [1, 4, 4, 3])
    s = g.node("Sub", "sub", [x, g.const("one", np.float32(1))], T=np.float32)
    d = g.node("RealDiv", "div", [s, g.const("four", np.float32(4))], T=np.float32)
    q = g.node("Square", "square", [d], T=np.float32)
    g.node("Softmax", "y", [q], T=np.float32)


def _tf_arith(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
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


def _tf_shapes(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
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


def _tf_select(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
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


def _tf_spatial(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
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
                                                 g.const("w", w(3, 3, 2, 3)), b],
               T=F32, strides=[1, 2, 2, 1], padding=b"SAME", data_format=b"NHWC")
    dw = g.node("DepthwiseConv2dNative", "dw", [d, g.const("dww", w(3, 3, 2, 2))], T=F32,
                strides=[1, 1, 1, 1], padding=b"VALID", data_format=b"NHWC",
                dilations=[1, 1, 1, 1])
    g.node("AvgPool", "y", [dw], T=F32, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
           padding=b"VALID", data_format=b"NHWC")


def _tf_norms(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
    """Einsum and BatchMatMulV2, then MVN unrolled as tf.nn.moments writes it."""
    x = g.placeholder("x", [2, 4, 3])
    e = g.node("Einsum", "ein", [x, g.const("b", w(2, 3, 5))], T=F32,
               equation=b"bij,bjk->bik", N=2)
    bm = g.node("BatchMatMulV2", "bmm", [e, g.const("b2", w(2, 6, 5))], T=F32, adj_x=False,
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


def _tf_pads(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
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


def _tf_more(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
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
    m = g.node("Mul", "alpha_mul", [g.const("alpha", w(6)), neg], T=F32)
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
                                          g.const("supd", w(2, 48)),
                                          g.const("sshp", i32([4, 48]))], T=F32, Tindices=np.int32)
    g.node("AddV2", "y2", [flat, snd], T=F32)


def _tf_index(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
    """TopKV2 with both outputs read, a Slice of sizes given, and an Einsum of NHWC images."""
    x = g.placeholder("x", [1, 6, 6, 4])
    g.node("TopKV2", "t", [x, g.const("k", np.int32(2))], T=F32, sorted=True)
    g.node("Exp", "y", ["t"], T=F32)
    g.node("Cast", "y2", ["t:1"], SrcT=np.int32, DstT=F32)
    g.node("Slice", "y3", [x, g.const("b", np.array([0, 1, 2, 0], np.int32)),
                           g.const("s", np.array([1, 3, 2, 2], np.int32))], T=F32, Index=np.int32)
    g.node("Einsum", "y4", [x, x], T=F32, N=2, equation=b"abcd,abed->abce")


def _tf_control(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
    """An Assert and an Exp the ReLU waits for (control inputs), and a NoOp no node reads,
    which MO's passes removed (its Result, the Assert, the control edges) as extgen does."""
    x = g.placeholder("x", [1, 6, 6, 4])
    g.node("Assert", "check", [g.const("cond", np.bool_(True)), x], T=[F32], summarize=3)
    e = g.node("Exp", "e", [x], T=F32)
    g.node("Add", "y", [g.node("Relu", "r", [x, "^check", "^e"], T=F32), e], T=F32)
    g.node("NoOp", "noop", [])


def _tf_resize(g: GraphBuilder, w: Callable[..., np.ndarray]) -> None:
    """ResizeBilinear and ResizeNearestNeighbor of constant sizes and ReverseV2, which MO held as
    its own ops until a pass lowered each (where MO's IR and ovc's part: MO computes the
    scales, and the reversed lengths of a ReverseSequence, in the IR)."""
    x = g.placeholder("x", [1, 4, 4, 3])
    sizes = [g.const(f"size{i}", np.array([8, 8], np.int32)) for i in (1, 2)]
    b = g.node("ResizeBilinear", "bilinear", [x, sizes[0]], T=F32, align_corners=False,
               half_pixel_centers=True)
    n = g.node("ResizeNearestNeighbor", "nearest", [x, sizes[1]], T=F32, align_corners=False,
               half_pixel_centers=False)
    g.node("ReverseV2", "y", [g.node("AddV2", "sum", [b, n], T=F32),
                              g.const("rax", np.array([2], np.int32))], T=F32, Tidx=np.int32)


TF_MODELS: dict[str, Callable[[GraphBuilder, Callable[..., np.ndarray]], None]] = {
    "tf_conv": _tf_conv, "tf_softmax": _tf_softmax, "tf_arith": _tf_arith, "tf_shapes": _tf_shapes,
    "tf_select": _tf_select, "tf_spatial": _tf_spatial, "tf_norms": _tf_norms, "tf_pads": _tf_pads,
    "tf_more": _tf_more, "tf_index": _tf_index, "tf_control": _tf_control,
    "tf_resize": _tf_resize}
