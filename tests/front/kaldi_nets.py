"""Kaldi test nets: components as the writer takes them, each with its float64 numpy forward
pass, and whole nnet1/nnet2/nnet3 models built from them with fixed seeds."""

from __future__ import annotations

import numpy as np

from tests.front import kaldi_writer as kw
from tests.front.kaldi_writer import IV, F, I, Nested

RNG = np.random.default_rng(14)


def w(*shape: int, scale: float = 0.4) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _stats(dim: int) -> list:
    return ["<Dim>", I(dim), "<ValueAvg>", np.zeros(dim), "<DerivAvg>", np.zeros(dim),
            "<Count>", F(0.0), "<NumDimsSelfRepaired>", F(0.0), "<NumDimsProcessed>", F(0.0)]


# -- nnet2/nnet3 components: (type, items, forward) ----------------------------------------
def affine(din: int, dout: int, kind: str = "AffineComponent"):
    W, b = w(dout, din), w(dout)
    extra = {"NaturalGradientAffineComponent": ["<RankIn>", I(20), "<RankOut>", I(80),
                                                "<UpdatePeriod>", I(4),
                                                "<NumSamplesHistory>", F(2000.0),
                                                "<Alpha>", F(4.0)]}.get(kind, [])
    head = [] if kind == "FixedAffineComponent" else ["<LearningRate>", F(0.001)]
    items = [*head, "<LinearParams>", W, "<BiasParams>", b, *extra]
    if kind != "FixedAffineComponent":
        items += ["<IsGradient>", False]
    return kind, items, lambda x: x @ W.T.astype(np.float64) + b


def linear(din: int, dout: int):
    W = w(dout, din)
    items = ["<LearningRate>", F(0.001), "<Params>", W, "<OrthonormalConstraint>", F(0.0),
             "<UseNaturalGradient>", True, "<RankInOut>", I(20), I(20)]
    return "LinearComponent", items, lambda x: x @ W.T.astype(np.float64)


def tdnn0(din: int, dout: int):
    W, b = w(dout, din), w(dout)
    items = ["<MaxChange>", F(0.75), "<L2Regularize>", F(0.0), "<LearningRate>", F(0.001),
             "<TimeOffsets>", IV([0]), "<LinearParams>", W, "<BiasParams>", b,
             "<OrthonormalConstraint>", F(0.0), "<UseNaturalGradient>", True,
             "<NumSamplesHistory>", F(2000.0), "<AlphaInOut>", F(4.0), F(4.0),
             "<RankInOut>", I(20), I(20)]
    return "TdnnComponent", items, lambda x: x @ W.T.astype(np.float64) + b


def nonlinear(kind: str, dim: int):
    fn = {"SigmoidComponent": sigmoid, "TanhComponent": np.tanh,
          "RectifiedLinearComponent": lambda x: np.maximum(x, 0),
          "SoftmaxComponent": softmax,
          "LogSoftmaxComponent": lambda x: np.log(softmax(x)),
          "NoOpComponent": lambda x: x}[kind]
    return kind, _stats(dim), fn


def normalize(dim: int, rms: float = 0.5):
    items = ["<InputDim>", I(dim), "<TargetRms>", F(rms), "<AddLogStddev>", False]
    return "NormalizeComponent", items, lambda x: x * rms / np.sqrt(
        (x ** 2).mean(axis=1, keepdims=True))


def batch_norm(dim: int, block: int):
    mean, var = w(block), np.abs(w(block)) + 0.5
    items = ["<Dim>", I(dim), "<BlockDim>", I(block), "<Epsilon>", F(0.001),
             "<TargetRms>", F(1.0), "<TestMode>", False, "<Count>", F(100.0),
             "<StatsMean>", mean, "<StatsVar>", var]
    scale = 1.0 / np.sqrt(var.astype(np.float64) + np.float32(0.001))
    reps = dim // block
    return "BatchNormComponent", items, lambda x: (x - np.tile(mean, reps)) * np.tile(scale, reps)


def product(dim_out: int, parts: int = 2):
    items = ["<InputDim>", I(dim_out * parts), "<OutputDim>", I(dim_out)]
    return "ElementwiseProductComponent", items, lambda x: np.prod(
        np.split(x, parts, axis=1), axis=0)


def fixed_scale(dim: int):
    s = w(dim)
    return "FixedScaleComponent", ["<Scales>", s], lambda x: x * s


def backprop(dim: int, scale: float = 1.0):
    items = ["<Dim>", I(dim), "<Scale>", F(scale), "<ClippingThreshold>", F(30.0),
             "<ZeroingThreshold>", F(15.0), "<ZeroingInterval>", I(20),
             "<RecurrenceInterval>", I(1), "<NumElementsClipped>", F(0.0),
             "<NumElementsZeroed>", F(0.0), "<NumElementsProcessed>", F(0.0),
             "<NumZeroingBoundaries>", F(0.0)]
    return "BackpropTruncationComponent", items, lambda x: x * np.float32(scale)


def dropout(dim: int):
    items = ["<Dim>", I(dim), "<BlockDim>", I(dim), "<TimePeriod>", I(0),
             "<DropoutProportion>", F(0.5), "<Continuous>", True]
    return "GeneralDropoutComponent", items, lambda x: x


def spec_augment(dim: int):
    items = ["<Dim>", I(dim), "<ZeroedProportion>", F(0.25), "<TimeMaskMaxFrames>", I(10)]
    return "SpecAugmentTimeMaskComponent", items, lambda x: x


def lstm_nonlinearity(cell: int):
    P = w(3, cell)
    items = ["<MaxChange>", F(0.75), "<LearningRate>", F(0.001), "<Params>", P,
             "<ValueAvg>", np.zeros((cell, 5)), "<DerivAvg>", np.zeros((cell, 5)),
             "<SelfRepairConfig>", np.zeros(10), "<SelfRepairProb>", np.zeros(5),
             "<Count>", F(0.0)]

    def forward(x):
        i, f, g, o, c = np.split(x, 5, axis=1)
        c_t = sigmoid(f + P[1] * c) * c + sigmoid(i + P[0] * c) * np.tanh(g)
        return np.concatenate([c_t, sigmoid(o + P[2] * c_t) * np.tanh(c_t)], axis=1)

    return "LstmNonlinearityComponent", items, forward


def chain_reference(components: list, x: np.ndarray) -> np.ndarray:
    y = x.astype(np.float64)
    for _, _, fn in components:
        y = fn(y)
    return y


def splice0(dim: int):
    """nnet2's SpliceComponent of context [0] (MO reads an nnet2 net's input dim from it)."""
    items = ["<InputDim>", I(dim), "<Context>", IV([0]), "<ConstComponentDim>", I(0)]
    return "SpliceComponent", items, lambda x: x


def nnet2_chain(binary: bool, mdl: bool = False, splice: bool = True) -> tuple[bytes, list, int]:
    """An nnet2 net (MO reads its input dim from the first component's <InputDim>, and fails on
    a SpliceComponent of context [0]: splice=False leaves it out)."""
    comps = [*([splice0(12)] if splice else []), normalize(12),
             affine(12, 16, "FixedAffineComponent"), nonlinear("RectifiedLinearComponent", 16),
             normalize(16), affine(16, 10), nonlinear("SoftmaxComponent", 10)]
    data = kw.nnet2([(t, items) for t, items, _ in comps], binary, mdl)
    return data, comps, 12


def nnet3_chain(components: list, din: int, binary: bool, mdl: bool = False,
                priors: np.ndarray | None = None) -> bytes:
    """An nnet3 net that runs the components one after the other."""
    config, prev = [f"input-node name=input dim={din}"], "input"
    named = []
    for k, (ctype, items, _) in enumerate(components):
        name = f"c{k}"
        config.append(f"component-node name={name} component={name} input={prev}")
        named.append((name, ctype, items))
        prev = name
    config.append(f"output-node name=output input={prev} objective=linear")
    return kw.nnet3(config, named, binary, mdl, priors)


# -- nnet1 -------------------------------------------------------------------------------
def _nnet1_affine(din: int, dout: int, bias: bool = True):
    W, b = w(dout, din), w(dout)
    lr = ["<LearnRateCoef>", F(1.0)]
    if not bias:
        return ("LinearTransform", dout, din, [*lr, W]), lambda x: x @ W.T.astype(np.float64)
    items = [*lr, "<BiasLearnRateCoef>", F(1.0), "<MaxNorm>", F(0.0), W, b]
    return ("AffineTransform", dout, din, items), lambda x: x @ W.T.astype(np.float64) + b


def _nnet1_simple(ctype: str, dim: int, fn):
    return (ctype, dim, dim, []), fn


def nnet1_net(binary: bool, mo: bool = False) -> tuple[bytes, callable, int]:
    """Every stateless nnet1 component: AffineTransform, LinearTransform, Splice [0], AddShift,
    Rescale, Sigmoid, Tanh, RectifiedLinear, ParallelComponent, BlockSoftmax, Softmax. mo: only
    those MO read (it refused Splice, Tanh, RectifiedLinear, LinearTransform, BlockSoftmax)."""
    shift, scale = w(12), w(12)
    (nested_a, fa), (sig_a, _) = _nnet1_affine(6, 5), _nnet1_simple("Sigmoid", 5, sigmoid)
    nested_b, fb = _nnet1_affine(6, 3, bias=mo)
    blocks = [4, 6]
    layers = [
        (("Splice", 8, 8, [IV([0])]), lambda x: x),
        _nnet1_affine(8, 16),
        _nnet1_simple("Tanh", 16, np.tanh),
        _nnet1_affine(16, 12, bias=False),
        (("AddShift", 12, 12, ["<LearnRateCoef>", F(1.0), shift]), lambda x: x + shift),
        (("Rescale", 12, 12, ["<LearnRateCoef>", F(1.0), scale]), lambda x: x * scale),
        _nnet1_simple("RectifiedLinear", 12, lambda x: np.maximum(x, 0)),
        (("ParallelComponent", 8, 12, ["<NestedNnetCount>", I(2), "<NestedNnet>", I(1),
                                       Nested([nested_a, sig_a]), "<NestedNnet>", I(2),
                                       Nested([nested_b])]),
         lambda x: np.concatenate([sigmoid(fa(x[:, :6])), fb(x[:, 6:])], axis=1)),
        _nnet1_affine(8, 10),
        (("BlockSoftmax", 10, 10, ["<BlockDims>", IV(blocks)]),
         lambda x: np.concatenate([softmax(p) for p in np.split(x, [4], axis=1)], axis=1)),
    ]
    if mo:
        refused = {"Splice", "Tanh", "RectifiedLinear", "LinearTransform", "BlockSoftmax"}
        layers = [layer for layer in layers if layer[0][0] not in refused]
        layers.insert(1, _nnet1_simple("Sigmoid", 16, sigmoid))
        layers.insert(2, _nnet1_affine(16, 12))
        layers.append(_nnet1_simple("Softmax", 10, softmax))

    def forward(x):
        y = x.astype(np.float64)
        for _, fn in layers:
            y = fn(y)
        return y

    return kw.nnet1([c for c, _ in layers], binary), forward, 8
