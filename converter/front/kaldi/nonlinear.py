"""Kaldi's nonlinearities, normalizations and pass-through components, and the LSTM cell
nonlinearity of nnet3."""

from __future__ import annotations

import numpy as np

from converter.front import mo_front
from converter.front.kaldi.translator import KaldiNode, kaldi_op
from converter.graph.port import Port

_SQUARED_NORM_FLOOR = 2.0 ** -66  # Kaldi's floor on a row's mean square in NormalizeComponent
_SIMPLE = {"Sigmoid": ("Sigmoid", "SigmoidComponent"), "Tanh": ("Tanh", "TanhComponent"),
           "ReLU": ("RectifiedLinear", "RectifiedLinearComponent")}


def _unary(op_type: str):
    def translate(n: KaldiNode) -> list[Port]:
        return [n.op(op_type, [n.input(0)])]
    return translate


for _op, _names in _SIMPLE.items():
    kaldi_op(*_names)(_unary(_op))


@kaldi_op("Softmax", "SoftmaxComponent")
def softmax(n: KaldiNode) -> list[Port]:
    return [n.op("Softmax", [n.input(0)], axis=1)]


@kaldi_op("LogSoftmaxComponent")
def log_softmax(n: KaldiNode) -> list[Port]:
    return [n.op("LogSoftmax", [n.input(0)], axis=1)]


@kaldi_op("BlockSoftmax")
def block_softmax(n: KaldiNode) -> list[Port]:
    """A softmax over each block of <BlockDims>, the blocks concatenated."""
    dims = np.asarray(n.comp.array("<BlockDims>"), np.int64)
    split = n.op_node("VariadicSplit", [n.input(0), np.int64(1), dims],
                      out_ports_count=len(dims))
    parts = [n.op("Softmax", [split.out_port(i)], axis=1) for i in range(len(dims))]
    return [n.op("Concat", parts, axis=1)]


@kaldi_op("PnormComponent")
def pnorm(n: KaldiNode) -> list[Port]:
    """nnet2's group p-norm: output j is (sum |x_k|^p)^(1/p) over the g = <InputDim> /
    <OutputDim> consecutive inputs k of group j (MO left out the |.|: the same for even p)."""
    dim_in, dim_out, p = n.comp.int("<InputDim>"), n.comp.int("<OutputDim>"), n.comp.float("<P>")
    if dim_out <= 0 or dim_in % dim_out:
        n.reject(f"input dim {dim_in} is not a multiple of output dim {dim_out}",
                 "the model is corrupt")
    if not (np.isfinite(p) and p > 0):
        n.reject(f"<P> {p} is not a positive number", "the model is corrupt")
    size = np.array([-1, dim_out, dim_in // dim_out], np.int64)
    groups = n.op("Reshape", [n.op("Abs", [n.input(0)]), size], special_zero=False)
    powers = n.op("Power", [groups, n.const(np.array(p), np.float32)])
    total = n.op("ReduceSum", [powers, np.array([2], np.int64)], keep_dims=False)
    return [n.op("Power", [total, n.const(np.array(1 / p), np.float32)])]


@kaldi_op("NoOpComponent", "GeneralDropoutComponent", "SpecAugmentTimeMaskComponent",
          "DropoutComponent", "DropoutMaskComponent", "ClipGradientComponent")
def identity(n: KaldiNode) -> list[Port]:
    """Components that change nothing at inference."""
    return [n.input(0)]


@kaldi_op("NormalizeComponent")
def normalize(n: KaldiNode) -> list[Port]:
    """x * target_rms / sqrt(mean(x^2)), the mean square floored as Kaldi does."""
    comp = n.comp
    dim = comp.int("<InputDim>") if comp.has("<InputDim>") else comp.int("<Dim>")
    if comp.bool("<AddLogStddev>"):
        n.reject("<AddLogStddev> T is not supported", "retrain with add-log-stddev=false")
    unit = n.op("NormalizeL2", [n.input(0), np.array([1], np.int64)],
                eps=dim * _SQUARED_NORM_FLOOR, eps_mode="max")
    gain = comp.float("<TargetRms>", 1.0) * np.sqrt(dim)
    return [n.op("Multiply", [unit, n.const(np.array([gain]), np.float32)])]


@kaldi_op("BatchNormComponent")
def batch_norm(n: KaldiNode) -> list[Port]:
    """The stored statistics as a scale and shift (per block, tiled over the dim)."""
    comp = n.comp
    dim, block = comp.int("<Dim>"), comp.int("<BlockDim>")
    mean, var = comp.array("<StatsMean>"), comp.array("<StatsVar>")
    if block <= 0 or dim % block or mean.shape != (block,) or var.shape != (block,):
        n.reject(f"<Dim> {dim}, <BlockDim> {block} and statistics of {mean.size} do not fit",
                 "the model is corrupt")
    scale = comp.float("<TargetRms>", 1.0) / np.sqrt(var.astype(np.float64)
                                                     + comp.float("<Epsilon>", 1e-3))
    reps = dim // block
    y = n.op("Multiply", [n.input(0), n.const(np.tile(scale, reps)[None], np.float32)])
    shifted = n.op("Add", [y, n.const(np.tile(-mean * scale, reps)[None], np.float32)])
    return [mo_front.scale_shift(shifted, y)]


@kaldi_op("ElementwiseProductComponent")
def elementwise_product(n: KaldiNode) -> list[Port]:
    """The product of the input's <InputDim>/<OutputDim> equal parts."""
    dim_in, dim_out = n.comp.int("<InputDim>"), n.comp.int("<OutputDim>")
    if dim_out <= 0 or dim_in % dim_out:
        n.reject(f"input dim {dim_in} is not a multiple of output dim {dim_out}",
                 "the model is corrupt")
    parts = dim_in // dim_out
    split = n.op_node("Split", [n.input(0), np.int64(1)], num_splits=parts,
                      out_ports_count=parts)
    y = split.out_port(0)
    for i in range(1, parts):
        y = n.op("Multiply", [y, split.out_port(i)])
    return [y]


@kaldi_op("LstmNonlinearityComponent")
def lstm_nonlinearity(n: KaldiNode) -> list[Port]:
    """Input [i, f, g, o, c_prev] (each C wide), output [c, m]:
    c = sig(f + w_fc c_prev) c_prev + sig(i + w_ic c_prev) tanh(g); m = sig(o + w_oc c) tanh(c)."""
    weights = n.comp.array("<Params>")
    if weights.ndim != 2 or weights.shape[0] != 3:
        n.reject(f"<Params> of shape {list(weights.shape)}, not [3, cell dim]",
                 "the model is corrupt")
    if n.comp.bool("<UseDropout>"):
        n.reject("<UseDropout> T is not supported", "convert a model trained without it")
    split = n.op_node("Split", [n.input(0), np.int64(1)], num_splits=5, out_ports_count=5)
    i_part, f_part, g_part, o_part, c_prev = (split.out_port(k) for k in range(5))
    w_i, w_f, w_o = (n.const(weights[k][None], np.float32) for k in range(3))

    def gate(part: Port, w: Port, cell: Port) -> Port:
        return n.op("Sigmoid", [n.op("Add", [part, n.op("Multiply", [w, cell])])])

    keep = n.op("Multiply", [gate(f_part, w_f, c_prev), c_prev])
    write = n.op("Multiply", [gate(i_part, w_i, c_prev), n.op("Tanh", [g_part])])
    cell = n.op("Add", [keep, write])
    out = n.op("Multiply", [gate(o_part, w_o, cell), n.op("Tanh", [cell])])
    return [n.op("Concat", [cell, out], axis=1)]
