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


def pnorm(din: int, dout: int, p: float = 2.0):
    """nnet2's PnormComponent: output j is the p-norm of inputs j*g .. j*g+g-1 (g = din/dout)."""
    items = ["<InputDim>", I(din), "<OutputDim>", I(dout), "<P>", F(p)]
    return "PnormComponent", items, lambda x: (np.abs(x.reshape(len(x), dout, -1)) ** p).sum(
        axis=2) ** (1 / p)


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


def nnet2_scored_net(binary: bool, mdl: bool = True) -> tuple[bytes, callable]:
    """nnet2: SpliceComponent of frames [-1, 0, 1] (4 dims), AffineComponent, PnormComponent,
    NormalizeComponent, AffineComponent, SoftmaxComponent (6 classes)."""
    items = ["<InputDim>", I(4), "<Context>", IV([-1, 0, 1]), "<ConstComponentDim>", I(0)]
    comps = [affine(12, 16), pnorm(16, 8), normalize(8), affine(8, 6),
             nonlinear("SoftmaxComponent", 6)]
    data = kw.nnet2([("SpliceComponent", items), *((t, i) for t, i, _ in comps)], binary, mdl)
    spec = [("splice", 1, [("input", -1), ("input", 0), ("input", 1)], lambda x: x, 12),
            ("out", 1, [("splice", 0)], lambda x: chain_reference(comps, x), 6)]
    return data, lambda X: simulate(spec, X, "out", 1)


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


# -- nets with time offsets: a frame-by-frame float64 simulation ------------------------------
def simulate(spec: list, X: np.ndarray, out: str, out_delay: int) -> np.ndarray:
    """spec: (name, delay, reads [(source, offset)], fn of the concatenated reads, dim) in
    order; "input" is X. A node holds frame f at call f + delay and is zero before call 0 (MO's
    padding). Returns the output of each call t: out at frame t - out_delay."""
    nodes = {name: (d, reads, fn, dim) for name, d, reads, fn, dim in spec}
    memo: dict = {}

    def value(name: str, f: int) -> np.ndarray:
        if name == "input":
            return X[f][None].astype(np.float64) if f >= 0 else np.zeros((1, X.shape[1]))
        d, reads, fn, dim = nodes[name]
        if f + d < 0:
            return np.zeros((1, dim))
        if (name, f) not in memo:
            memo[name, f] = fn(np.concatenate([value(s, f + o) for s, o in reads], axis=1))
        return memo[name, f]

    return np.stack([value(out, t - out_delay) for t in range(len(X))])


def tdnn_net(binary: bool) -> tuple[bytes, callable]:
    """TdnnComponent with offsets [-1, 0, 1], ReLU, and an affine on frames -2, 0, +2."""
    W1, b1 = w(8, 18), w(8)
    tdnn = ["<MaxChange>", F(0.75), "<L2Regularize>", F(0.0), "<LearningRate>", F(0.001),
            "<TimeOffsets>", IV([-1, 0, 1]), "<LinearParams>", W1, "<BiasParams>", b1,
            "<OrthonormalConstraint>", F(0.0), "<UseNaturalGradient>", True,
            "<NumSamplesHistory>", F(2000.0), "<AlphaInOut>", F(4.0), F(4.0),
            "<RankInOut>", I(20), I(20)]
    relu, affine2 = nonlinear("RectifiedLinearComponent", 8), affine(24, 5)
    config = ["input-node name=input dim=6",
              "component-node name=tdnn1 component=tdnn1 input=input",
              "component-node name=relu1 component=relu1 input=tdnn1",
              "component-node name=affine2 component=affine2 "
              "input=Append(Offset(relu1, -2), relu1, Offset(relu1, 2))",
              "output-node name=output input=affine2 objective=linear"]
    named = [("tdnn1", "TdnnComponent", tdnn), ("relu1", relu[0], relu[1]),
             ("affine2", affine2[0], affine2[1])]
    spec = [("tdnn1", 1, [("input", -1), ("input", 0), ("input", 1)],
             lambda x: x @ W1.T.astype(np.float64) + b1, 8),
            ("relu1", 1, [("tdnn1", 0)], relu[2], 8),
            ("affine2", 3, [("relu1", -2), ("relu1", 0), ("relu1", 2)], affine2[2], 5)]
    return kw.nnet3(config, named, binary), lambda X: simulate(spec, X, "affine2", 3)


def lstm_net(binary: bool, cell: int = 3, proj: int = 2, scored: bool = False,
             priors: np.ndarray | None = None) -> tuple[bytes, callable]:
    """nnet3's LSTM: W_all on [input, r(t-1)], LstmNonlinearity on [gates, c(t-1)], a linear
    projection whose first `proj` dims are r, an output affine (scored: then a
    SoftmaxComponent, in a .mdl with these <Priors>)."""
    w_all, nonlin = affine(4 + proj, 4 * cell), lstm_nonlinearity(cell)
    w_rp, out = linear(cell, proj + 1), affine(proj + 1, 3)
    config = [
        "input-node name=input dim=4",
        "component-node name=lstm.W_all component=lstm.W_all "
        "input=Append(input, IfDefined(Offset(lstm.r, -1)))",
        "component-node name=lstm.nonlin component=lstm.nonlin "
        "input=Append(lstm.W_all, IfDefined(Offset(lstm.c, -1)))",
        f"dim-range-node name=lstm.c input-node=lstm.nonlin dim-offset=0 dim={cell}",
        f"dim-range-node name=lstm.m input-node=lstm.nonlin dim-offset={cell} dim={cell}",
        "component-node name=lstm.rp component=lstm.W_rp input=lstm.m",
        f"dim-range-node name=lstm.r input-node=lstm.rp dim-offset=0 dim={proj}",
        "component-node name=out component=out input=lstm.rp",
    ]
    named = [("lstm.W_all", *w_all[:2]), ("lstm.nonlin", *nonlin[:2]),
             ("lstm.W_rp", *w_rp[:2]), ("out", *out[:2])]
    last, softmax_step = "out", nonlinear("SoftmaxComponent", 3)
    if scored:
        config.append("component-node name=softmax component=softmax input=out")
        named.append(("softmax", *softmax_step[:2]))
        last = "softmax"
    config.append(f"output-node name=output input={last} objective=linear")
    spec = [("lstm.W_all", 0, [("input", 0), ("lstm.r", -1)], w_all[2], 4 * cell),
            ("lstm.nonlin", 0, [("lstm.W_all", 0), ("lstm.c", -1)], nonlin[2], 2 * cell),
            ("lstm.c", 0, [("lstm.nonlin", 0)], lambda x: x[:, :cell], cell),
            ("lstm.m", 0, [("lstm.nonlin", 0)], lambda x: x[:, cell:], cell),
            ("lstm.rp", 0, [("lstm.m", 0)], w_rp[2], proj + 1),
            ("lstm.r", 0, [("lstm.rp", 0)], lambda x: x[:, :proj], proj),
            ("out", 0, [("lstm.rp", 0)], out[2], 3),
            ("softmax", 0, [("out", 0)], softmax_step[2], 3)]
    data = kw.nnet3(config, named, binary, mdl=scored, priors=priors)
    return data, lambda X: simulate(spec, X, last, 0)


def nnet1_splice_net(binary: bool) -> tuple[bytes, callable]:
    """nnet1: Splice [-2..2] of 3-dim frames, AffineTransform, Sigmoid."""
    (aff, fa), offsets = _nnet1_affine(15, 4), [-2, -1, 0, 1, 2]
    comps = [("Splice", 15, 3, [IV(offsets)]), aff, ("Sigmoid", 4, 4, [])]
    spec = [("splice", 2, [("input", o) for o in offsets], lambda x: x, 15),
            ("out", 2, [("splice", 0)], lambda x: sigmoid(fa(x)), 4)]
    return kw.nnet1(comps, binary), lambda X: simulate(spec, X, "out", 2)


def nnet1_parallel_splice_net(binary: bool) -> tuple[bytes, callable]:
    """nnet1: a ParallelComponent whose first net splices frames [-1, 0, 1] of its 3 dims
    (AffineTransform after), the second an AffineTransform of the other 3 dims; Sigmoid."""
    (aff_a, fa), (aff_b, fb) = _nnet1_affine(9, 4), _nnet1_affine(3, 2)
    par = ("ParallelComponent", 6, 6, ["<NestedNnetCount>", I(2), "<NestedNnet>", I(1),
                                       Nested([("Splice", 9, 3, [IV([-1, 0, 1])]), aff_a]),
                                       "<NestedNnet>", I(2), Nested([aff_b])])
    spec = [("xa", 0, [("input", 0)], lambda x: x[:, :3], 3),
            ("xb", 0, [("input", 0)], lambda x: x[:, 3:], 3),
            ("a", 1, [("xa", -1), ("xa", 0), ("xa", 1)], fa, 4),
            ("b", 0, [("xb", 0)], fb, 2),
            ("out", 1, [("a", 0), ("b", 0)], sigmoid, 6)]
    return kw.nnet1([par, ("Sigmoid", 6, 6, [])], binary), lambda X: simulate(spec, X, "out", 1)


def nnet1_lstm_net(binary: bool, cell: int = 3, proj: int = 2) -> tuple[bytes, callable]:
    """nnet1: LstmProjected (peepholes, projection), AffineTransform, Softmax."""
    w_x, w_r, bias = w(4 * cell, 4), w(4 * cell, proj), w(4 * cell)
    p_i, p_f, p_o, w_rm = w(cell), w(cell), w(cell), w(proj, cell)
    items = ["<CellDim>", I(cell), "<LearnRateCoef>", F(1.0), "<BiasLearnRateCoef>", F(1.0),
             "<CellClip>", F(50.0), "<DiffClip>", F(1.0), "<CellDiffClip>", F(0.0),
             "<GradClip>", F(250.0), w_x, w_r, bias, p_i, p_f, p_o, w_rm]
    (aff, fa) = _nnet1_affine(proj, 5)
    comps = [("LstmProjected", proj, 4, items), aff, ("Softmax", 5, 5, [])]

    def step(v):  # v = [x, r(t-1), c(t-1)] -> [r, c]
        x, r, c = v[:, :4], v[:, 4:4 + proj], v[:, 4 + proj:]
        g, i, f, o = np.split(x @ w_x.T.astype(np.float64) + r @ w_r.T.astype(np.float64)
                              + bias, 4, axis=1)
        c = sigmoid(f + p_f * c) * c + sigmoid(i + p_i * c) * np.tanh(g)
        return np.concatenate([(sigmoid(o + p_o * c) * np.tanh(c)) @ w_rm.T.astype(np.float64),
                               c], axis=1)

    spec = [("lstm", 0, [("input", 0), ("r", -1), ("c", -1)], step, proj + cell),
            ("r", 0, [("lstm", 0)], lambda v: v[:, :proj], proj),
            ("c", 0, [("lstm", 0)], lambda v: v[:, proj:], cell),
            ("out", 0, [("r", 0)], lambda v: softmax(fa(v)), 5)]
    return kw.nnet1(comps, binary), lambda X: simulate(spec, X, "out", 0)


def nnet1_cnn_net(binary: bool) -> tuple[bytes, callable, int]:
    """nnet1: ConvolutionalComponent (2 spliced frames of 10, patches of 3, step 1, 4 filters),
    MaxPoolingComponent (pools of 2 patches, step 2), AffineTransform, Softmax."""
    filters, bias = w(4, 2 * 3), w(4)
    lr = ["<LearnRateCoef>", F(1.0), "<BiasLearnRateCoef>", F(1.0), "<MaxNorm>", F(0.0)]
    conv = ("ConvolutionalComponent", 32, 20, ["<PatchDim>", I(3), "<PatchStep>", I(1),
                                                "<PatchStride>", I(10), *lr,
                                                "<Filters>", filters, "<Bias>", bias])
    pool = ("MaxPoolingComponent", 16, 32, ["<PoolSize>", I(2), "<PoolStep>", I(2),
                                            "<PoolStride>", I(4)])
    aff, fa = _nnet1_affine(16, 5)

    def forward(x):
        blocks = x.reshape(2, 10)
        conv_out = np.stack([filters.astype(np.float64) @ blocks[:, p:p + 3].reshape(-1) + bias
                             for p in range(8)])  # [patch, filter]
        pooled = np.stack([conv_out[2 * q:2 * q + 2].max(axis=0) for q in range(4)])
        return softmax(fa(pooled.reshape(1, -1)))

    return kw.nnet1([conv, pool, aff, ("Softmax", 5, 5, [])], binary), forward, 20
