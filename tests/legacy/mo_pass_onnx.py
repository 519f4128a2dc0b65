"""Small ONNX models (input "x", output "y") for tests/legacy/mo_pass_models.py, each a mix of the
patterns MO's passes look for: activations written out, normalisations, slicing and layout
chains, convolutions and pooling, selection ops. Where MO's IR of a pattern differs from ovc's
(and so extgen's) without any extension, the pattern has a small model of its own (softmax,
l2_norms, shuffle, resize, topk), so the others compare a module's IR with MO's exactly.
Softmax runs over the last axis, where MO's legacy ONNX frontend (the pre-13 flattening
Softmax) and ONNX-13 agree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tests.conftest import make_model

SHAPE = [1, 4, 6, 6]
Nodes = list[onnx.NodeProto]
Inits = dict[str, np.ndarray]


def _n(op: str, ins: list[str], out: str | list[str], **attrs) -> onnx.NodeProto:
    """A node named after its op and first output (MO's RNN passes need node and tensor names
    apart)."""
    outs = [out] if isinstance(out, str) else out
    return helper.make_node(op, ins, outs, name=f"{op}_{outs[0]}", **attrs)


def _f(*v: float) -> np.ndarray:
    return np.array(v if len(v) != 1 else v[0], np.float32)


def _i(*v: int) -> np.ndarray:
    return np.array(v, np.int64)


def _activations(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    return [
        _n("Sigmoid", ["x"], "sig"), _n("Mul", ["x", "sig"], "swish"),
        _n("Softplus", ["swish"], "sp"), _n("Tanh", ["sp"], "tsp"),
        _n("Mul", ["swish", "tsp"], "mish"),
        _n("Div", ["mish", "sqrt2"], "d"), _n("Erf", ["d"], "erf"), _n("Add", ["erf", "one"], "e1"),
        _n("Mul", ["mish", "e1"], "m"), _n("Mul", ["m", "half"], "gelu"),
        _n("Add", ["gelu", "three"], "a3"), _n("Relu", ["a3"], "r3"),
        _n("Min", ["r3", "six"], "min6"), _n("Div", ["min6", "six"], "hsig"),
        _n("Mul", ["hsig", "alpha"], "ax"), _n("Max", ["hsig", "ax"], "leaky"),
        _n("Abs", ["leaky"], "abs"), _n("Add", ["abs", "one"], "a1"),
        _n("Div", ["leaky", "a1"], "softsign"), _n("Add", ["softsign", "leaky"], "s"),
        _n("Exp", ["s"], "y")], {
        "sqrt2": _f(np.sqrt(2)), "one": _f(1), "half": _f(0.5), "three": _f(3), "six": _f(6),
        "alpha": _f(0.1)}


def _softmax(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Where MO's IR and ovc's part: MO writes Softmax-13 as Reshape+SoftMax-1+Reshape and
    Reciprocal as Power."""
    return [
        _n("Reciprocal", ["x"], "rec"), _n("Exp", ["rec"], "exp"),
        _n("ReduceSum", ["exp", "last"], "sum", keepdims=1), _n("Div", ["exp", "sum"], "sm"),
        _n("Softmax", ["sm"], "y", axis=-1)], {"last": _i(-1)}


def _norms(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    return [
        _n("ReduceMean", ["x"], "mean", axes=[-1], keepdims=1), _n("Sub", ["x", "mean"], "c"),
        _n("Pow", ["c", "two"], "sq"), _n("ReduceMean", ["sq"], "var", axes=[-1], keepdims=1),
        _n("Add", ["var", "eps"], "ve"), _n("Sqrt", ["ve"], "std"), _n("Div", ["c", "std"], "n"),
        _n("Mul", ["n", "gamma"], "g"), _n("Add", ["g", "beta"], "ln"),
        _n("LpNormalization", ["ln"], "lp", axis=1, p=2),
        _n("MeanVarianceNormalization", ["lp"], "y", axes=[2, 3])], {
        "two": _f(2), "eps": _f(1e-6), "gamma": w(6) + 1, "beta": w(6)}


def _l2_norms(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Where MO's IR and ovc's part: MO writes the L2 norm's Sqrt as Power; extgen's
    InstanceNormalization keeps 2 Reshapes."""
    return [
        _n("Mul", ["x", "x"], "l2sq"), _n("ReduceSum", ["l2sq", "one_axis"], "l2sum",
                                           keepdims=1),
        _n("Max", ["l2sum", "eps"], "l2max"), _n("Sqrt", ["l2max"], "l2"),
        _n("Div", ["x", "l2"], "l2n"),
        _n("InstanceNormalization", ["l2n", "scale", "bias"], "y", epsilon=1e-5)], {
        "eps": _f(1e-6), "one_axis": _i(1), "scale": w(4) + 1, "bias": w(4)}


def _shuffle(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Where MO's IR and ovc's part: MO fuses Slices+Concat to a Split, Reshape-Transpose-Reshape
    to ShuffleChannels, cancels a Transpose pair and folds a Transpose into ReduceMax, and
    writes an even ONNX Split as Split, not VariadicSplit."""
    return [
        _n("Slice", ["x", "s0", "e0", "ax"], "part0"),
        _n("Slice", ["x", "s1", "e1", "ax"], "part1"),
        _n("Concat", ["part1", "part0"], "swap", axis=1),
        _n("Reshape", ["swap", "groups"], "grouped"),
        _n("Transpose", ["grouped"], "shuffled", perm=[0, 2, 1, 3, 4]),
        _n("Reshape", ["shuffled", "flat4"], "shuffle"),
        _n("Transpose", ["shuffle"], "t1", perm=[0, 2, 3, 1]),
        _n("Transpose", ["t1"], "t2", perm=[0, 3, 1, 2]),
        _n("Split", ["t2", "halves"], ["h0", "h1"], axis=1), _n("Add", ["h0", "h1"], "hs"),
        _n("Transpose", ["hs"], "tr", perm=[0, 2, 3, 1]),
        _n("ReduceMax", ["tr"], "y", axes=[1, 2], keepdims=0)], {
        "s0": _i(0), "e0": _i(2), "s1": _i(2), "e1": _i(4), "ax": _i(1),
        "groups": _i(1, 2, 2, 6, 6), "flat4": _i(1, 4, 6, 6), "halves": _i(2, 2)}


def _movement(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    return [
        _n("Unsqueeze", ["x", "zero"], "u"), _n("Squeeze", ["u", "first"], "sq"),
        _n("Gather", ["sq", "idx"], "gathered", axis=3),
        _n("Pad", ["gathered", "pads", "pad_value"], "padded", mode="constant"),
        _n("Tile", ["padded", "reps"], "tiled"), _n("DepthToSpace", ["tiled"], "d2s", blocksize=2),
        _n("SpaceToDepth", ["d2s"], "s2d", blocksize=2),
        _n("ReduceMax", ["s2d"], "rmax", axes=[2, 3], keepdims=0),
        _n("Expand", ["rmax", "big"], "exp"), _n("Flatten", ["exp"], "y", axis=1)], {
        "zero": _i(0), "first": _i(0), "idx": _i(5, 0, 3, 1), "pad_value": _f(0.5),
        "pads": _i(0, 0, 1, 0, 0, 0, 1, 0),
        "reps": _i(1, 2, 1, 1), "big": _i(3, 8)}


def _conv(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    return [
        _n("Conv", ["x", "gw", "gb"], "gconv", group=2, pads=[1, 1, 1, 1]),
        _n("BatchNormalization", ["gconv", "bs", "bb", "bm", "bv"], "bn"),
        _n("PRelu", ["bn", "slope"], "prelu"),
        _n("Conv", ["prelu", "dw"], "dconv", dilations=[2, 2], pads=[2, 2, 2, 2]),
        _n("LRN", ["dconv"], "lrn", size=3), _n("MaxPool", ["lrn"], "mp", kernel_shape=[2, 2],
                                                   strides=[2, 2]),
        _n("ConvTranspose", ["mp", "tw"], "deconv", strides=[2, 2], kernel_shape=[2, 2]),
        _n("AveragePool", ["deconv"], "ap", kernel_shape=[3, 3], strides=[2, 2],
           pads=[1, 1, 1, 1]),
        _n("GlobalMaxPool", ["ap"], "gmp"), _n("Flatten", ["gmp"], "f"),
        _n("Gemm", ["f", "fw", "fb"], "gemm", transB=1, alpha=0.5),
        _n("MatMul", ["gemm", "mw"], "mm"), _n("Add", ["mm", "mb"], "y")], {
        "gw": w(4, 2, 3, 3), "gb": w(4), "bs": w(4) + 1, "bb": w(4), "bm": w(4),
        "bv": np.abs(w(4)) + 0.5, "slope": np.abs(w(4, 1, 1)), "dw": w(4, 4, 3, 3),
        "tw": w(4, 4, 2, 2), "fw": w(5, 4), "fb": w(5),
        "mw": w(5, 3), "mb": w(3)}


def _resize(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Where MO's IR and ovc's part: MO computes Resize's output shape in the IR."""
    return [_n("Resize", ["x", "", "scales"], "y", mode="nearest")], {
        "scales": _f(1, 1, 2, 2)}


def _topk(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Where MO's IR and ovc's part: MO keeps TopK's unused indices output as a Result."""
    return [_n("TopK", ["x", "k"], ["y", "topi"], axis=-1)], {"k": _i(2)}


def _selection(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    return [
        _n("Reshape", ["x", "seq"], "g"),
        _n("TopK", ["g", "k"], ["top", "topi"], axis=-1), _n("Cast", ["topi"], "topif", to=1),
        _n("ArgMax", ["g"], "am", axis=-1, keepdims=1), _n("Cast", ["am"], "amf", to=1),
        _n("Greater", ["top", "half"], "gt"), _n("Where", ["gt", "top", "amf"], "sel"),
        _n("Concat", ["sel", "top", "topif"], "cat", axis=-1),
        _n("ReduceL2", ["cat"], "rl2", axes=[-1], keepdims=1),
        _n("Sub", ["cat", "rl2"], "y")], {
        "seq": _i(6, 4, 6), "k": _i(2), "half": _f(0.5)}


def _hswish(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """x * Clip(x + 3, 0, 6) * (1/6), which MO fuses to HSwish (issue 31's HSwishWithClamp)."""
    return [
        _n("Add", ["x", "three"], "add"), _n("Clip", ["add", "zero", "six"], "clip"),
        _n("Mul", ["x", "clip"], "mul"), _n("Mul", ["mul", "sixth"], "y")], {
        "three": _f(3), "zero": _f(0), "six": _f(6), "sixth": _f(1 / 6)}


def _no_ops(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Ops that change nothing, which MO's passes and ovc's remove: a Pad of zeros, a Reshape
    of a Reshape, an Add of 0."""
    return [
        _n("Pad", ["x", "no_pads", "pad_value"], "padded", mode="constant"),
        _n("Reshape", ["padded", "rows"], "r"), _n("Reshape", ["r", "cols"], "c"),
        _n("Relu", ["c"], "relu"), _n("Add", ["relu", "zero"], "y")], {
        "no_pads": _i(0, 0, 0, 0, 0, 0, 0, 0), "pad_value": _f(0), "rows": _i(1, 4, 36),
        "cols": _i(1, 144), "zero": _f(0)}


def _hard_sigmoid(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    return [_n("HardSigmoid", ["x"], "y", alpha=0.25, beta=0.5)], {}


def _misc(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """ConstantOfShape, HSigmoid written out, ThresholdedRelu, the Scatters, an Expand of a
    Range, a Split without sizes, ArgMin without keepdims and two Transposes around a Relu."""
    return [
        _n("ConstantOfShape", ["shape"], "halves", value=helper.make_tensor("v", 1, [1], [0.5])),
        _n("Mul", ["x", "halves"], "m"),
        _n("Add", ["m", "three"], "a3"), _n("Relu", ["a3"], "r3"), _n("Min", ["r3", "six"], "m6"),
        _n("Mul", ["m6", "sixth"], "hsig"), _n("ThresholdedRelu", ["hsig"], "thr", alpha=0.2),
        _n("ScatterElements", ["thr", "sidx", "supd"], "sc", axis=1),
        _n("ScatterND", ["sc", "nidx", "nupd"], "snd"),
        _n("Range", ["start", "limit", "delta"], "rng"), _n("Expand", ["rng", "shape"], "ex"),
        _n("Cast", ["ex"], "exf", to=1), _n("Add", ["snd", "exf"], "s2"),
        _n("Split", ["s2"], ["q0", "q1", "q2", "q3"], axis=1), _n("Add", ["q0", "q3"], "ad"),
        _n("ArgMin", ["ad"], "am", axis=2, keepdims=0), _n("Cast", ["am"], "amf", to=1),
        _n("Unsqueeze", ["amf", "two"], "amu"),
        _n("Transpose", ["s2"], "t1", perm=[0, 2, 3, 1]), _n("Relu", ["t1"], "tr"),
        _n("Transpose", ["tr"], "t2", perm=[0, 3, 1, 2]), _n("Exp", ["t2"], "te"),
        _n("Mul", ["te", "ad"], "tm"), _n("Add", ["tm", "amu"], "y")], {
        "shape": _i(*SHAPE), "three": _f(3), "six": _f(6), "sixth": _f(1 / 6),
        "sidx": np.zeros((1, 1, 6, 6), np.int64), "supd": w(1, 1, 6, 6),
        "nidx": _i(0, 1).reshape(1, 2), "nupd": w(1, 6, 6), "start": np.array(0, np.int64),
        "limit": np.array(6, np.int64), "delta": np.array(1, np.int64), "two": _i(2)}


def _old_pads(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Pad-2, its pads and value attributes (opset 10)."""
    return [
        _n("Pad", ["x"], "p", pads=[0, 0, 1, 1, 0, 0, 1, 1], mode="constant", value=0.5),
        _n("Pad", ["p"], "y", pads=[0, 0, 1, 0, 0, 0, 0, 1], mode="reflect")], {}


def _one_hot_norm(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """OneHot of an ArgMax and InstanceNormalization, which MO's front passes lowered."""
    return [
        _n("ArgMax", ["x"], "am", axis=1, keepdims=0), _n("OneHot", ["am", "d", "v"], "oh", axis=1),
        _n("Add", ["x", "oh"], "a"),
        _n("InstanceNormalization", ["a", "s", "b"], "y", epsilon=1e-5)], {
        "d": _i(4), "v": _f(0, 1), "s": w(4), "b": w(4)}


def _qdq(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """QuantizeLinear and DequantizeLinear, which MO's middle passes made a FakeQuantize."""
    return [_n("QuantizeLinear", ["x", "sc", "zp"], "q"),
            _n("DequantizeLinear", ["q", "sc", "zp"], "y")], {
        "sc": _f(0.05), "zp": np.array(3, np.uint8)}


def _gelu_tanh(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """GELU's tanh approximation written out, 0.5 applied before x, as MO's GeLUMergerTanh
    matches it (MO and ovc fuse it to Gelu)."""
    return [
        _n("Pow", ["x", "three"], "p3"), _n("Mul", ["p3", "c"], "pc"), _n("Add", ["x", "pc"], "s"),
        _n("Mul", ["s", "sq"], "ss"), _n("Tanh", ["ss"], "t"), _n("Add", ["t", "one"], "t1"),
        _n("Mul", ["t1", "half"], "h"), _n("Mul", ["x", "h"], "y")], {
        "three": _f(3), "c": _f(0.044715), "sq": _f(np.sqrt(2 / np.pi)), "one": _f(1),
        "half": _f(0.5)}


def _image_scaler(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """ImageScaler, an experimental op of opset 9 that MO's front pass lowered."""
    return [_n("ImageScaler", ["x"], "y", scale=2.0, bias=[0.1, 0.2, 0.3, 0.4])], {}


def _keras_softmax(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Softmax written out as Keras exports it (x - max, exp, over the sum), which MO's front
    pass and extgen fuse to one SoftMax."""
    return [_n("ReduceMax", ["x"], "mx", axes=[3], keepdims=1), _n("Sub", ["x", "mx"], "s"),
            _n("Exp", ["s"], "e"), _n("ReduceSum", ["e", "ax3"], "rs", keepdims=1),
            _n("Div", ["e", "rs"], "y")], {"ax3": _i(3)}


def _relu_qdq(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """A ReLU before a uint8 QuantizeLinear of zero point 0, which MO's middle pass folded into
    the FakeQuantize (its range starts at 0); extgen and ovc keep the ReLU."""
    return [_n("Relu", ["x"], "r"), _n("QuantizeLinear", ["r", "sc", "zp"], "q"),
            _n("DequantizeLinear", ["q", "sc", "zp"], "y")], {
        "sc": _f(0.05), "zp": np.array(0, np.uint8)}


def _dup_names(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Three nodes of one name, which MO's back pass and extgen make unique in the IR."""
    return [helper.make_node("Relu", ["x"], ["r"], name="dup"),
            helper.make_node("Sigmoid", ["r"], ["s"], name="dup"),
            helper.make_node("Add", ["r", "s"], ["y"], name="dup")], {}


def _cast64(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """x through float64 and back: MO's back pass made the first Cast float32 (as OpenVINO's
    plugins lack f64), and both went; extgen and ovc keep the two Converts."""
    return [_n("Cast", ["x"], "d", to=11), _n("Cast", ["d"], "f", to=1),
            _n("Add", ["x", "f"], "y")], {}

def _slice9(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Slice of opset 9 (starts, ends and axes attributes), which MO's front pass
    AttributedSliceToSlice gave as inputs (where MO's IR and ovc's part: MO writes any Slice as
    StridedSlice)."""
    return [_n("Slice", ["x"], "y", starts=[0, 1], ends=[4, 5], axes=[2, 3])], {}


def _topk9(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """TopK of opset 9 (k an attribute), which MO's front pass TopKNormalize gave as input 1."""
    return [_n("TopK", ["x"], ["top", "topi"], k=2, axis=-1), _n("Cast", ["topi"], "ti", to=1),
            _n("Add", ["top", "ti"], "y")], {}


def _softmax9(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Softmax and LogSoftmax of opset 9 over the last axis (MO's SoftMaxONNX and
    LogSoftmaxONNX, which its front passes flattened: where MO's IR and ovc's part)."""
    return [_n("Softmax", ["x"], "sm", axis=3), _n("LogSoftmax", ["sm"], "y", axis=-1)], {}


def _resize10(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """Resize of opset 10 (MO's ONNXResize10: data and scales)."""
    return [_n("Resize", ["x", "scales"], "y", mode="nearest")], {"scales": _f(1, 1, 2, 2)}


def _nms(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """NonMaxSuppression of scalar limits, which MO's front pass made 1-D: x as 36 boxes and as
    the scores of 4 classes."""
    return [_n("Reshape", ["x", "boxes_shape"], "boxes"),
            _n("Reshape", ["x", "scores_shape"], "scores"),
            _n("NonMaxSuppression", ["boxes", "scores", "most", "iou", "least"], "picked"),
            _n("Cast", ["picked"], "y", to=1)], {
        "boxes_shape": _i(1, 36, 4), "scores_shape": _i(1, 4, 36),
        "most": np.array(3, np.int64), "iou": _f(0.5), "least": _f(0.0)}


def _loop(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
    """A Loop of 3 iterations carrying a constant (passed on unchanged, which MO's middle pass
    moved into the body) and a counter: y = x + sum of c * v."""
    def info(name: str, kind: int = TensorProto.FLOAT, shape: list | None = None):
        return helper.make_tensor_value_info(name, kind, [2, 3] if shape is None else shape)

    body = helper.make_graph(
        [_n("Identity", ["c"], "c_out"), _n("Identity", ["k"], "k_out"),
         _n("Add", ["v", "one"], "v_out"), _n("Mul", ["k", "v"], "kv"),
         _n("Add", ["acc", "kv"], "acc_out")], "body",
        [info("i", TensorProto.INT64, []), info("c", TensorProto.BOOL, []), info("k"),
         info("v"), info("acc")],
        [info("c_out", TensorProto.BOOL, []), info("k_out"), info("v_out"), info("acc_out")],
        [numpy_helper.from_array(np.float32(1), "one")])
    return [_n("Loop", ["trips", "go", "kc", "vc", "x"], ["k_end", "v_end", "y"], body=body)], {
        "trips": np.array(3, np.int64), "go": np.array(True), "kc": w(2, 3), "vc": w(2, 3)}


def _recurrent(op: str, gates: int, **attrs: int) -> Callable[..., tuple[Nodes, Inits]]:
    """One forward LSTM, GRU or RNN layer over x [3, 2, 6] with initial states (MO 2023.3's
    legacy ONNX path fails without them), hidden size 5, its sequence output squeezed."""
    def nodes(w: Callable[..., np.ndarray]) -> tuple[Nodes, Inits]:
        states = ["h0", "c0"] if op == "LSTM" else ["h0"]
        outs = ["ys", "yh", "yc"] if op == "LSTM" else ["ys", "yh"]
        inits = {"W": w(1, gates * 5, 6), "R": w(1, gates * 5, 5), "B": w(1, 2 * gates * 5),
                 **{s: w(1, 2, 5) for s in states}, "ax1": _i(1)}
        return [_n(op, ["x", "W", "R", "B", "", *states], outs, hidden_size=5, **attrs),
                _n("Squeeze", ["ys", "ax1"], "y")], inits

    return nodes


ONNX_MODELS: dict[str, Callable[[Callable[..., np.ndarray]], tuple[Nodes, Inits]]] = {
    "activations": _activations, "norms": _norms, "movement": _movement, "conv": _conv,
    "selection": _selection, "hswish": _hswish, "softmax": _softmax, "l2_norms": _l2_norms,
    "shuffle": _shuffle, "resize": _resize, "topk": _topk, "hard_sigmoid": _hard_sigmoid,
    "no_ops": _no_ops, "misc": _misc, "old_pads": _old_pads, "one_hot_norm": _one_hot_norm,
    "qdq": _qdq, "image_scaler": _image_scaler, "gelu_tanh": _gelu_tanh,
    "keras_softmax": _keras_softmax, "relu_qdq": _relu_qdq, "conv_batch": _conv,
    "lstm": _recurrent("LSTM", 4), "gru": _recurrent("GRU", 3, linear_before_reset=1),
    "rnn": _recurrent("RNN", 1), "dup_names": _dup_names,
    "cast64": _cast64, "slice9": _slice9, "topk9": _topk9,
    "softmax9": _softmax9, "resize10": _resize10, "nms": _nms,
    "loop": _loop}
OPSETS = {"old_pads": 10, "image_scaler": 9, "slice9": 9, "topk9": 9, "softmax9": 9,
          "resize10": 10}  # the others are opset 13
# the others' x is SHAPE
SHAPES = {"lstm": [3, 2, 6], "gru": [3, 2, 6], "rnn": [3, 2, 6], "loop": [2, 3]}
FLAGS = {"conv_batch": ["--batch", "2"]}  # MO's command line beyond the model


def write_onnx(folder: Path, name: str, rng: np.random.Generator) -> Path:
    def w(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.3).astype(np.float32)

    nodes, inits = ONNX_MODELS[name](w)
    model = make_model(nodes, [("x", TensorProto.FLOAT, SHAPES.get(name, SHAPE))],
                       [("y", TensorProto.FLOAT, None)], inits, opset=OPSETS.get(name, 13))
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    path = folder / f"{name}.onnx"
    onnx.save(model, path)
    return path
