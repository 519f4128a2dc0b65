"""Kaldi front end: nnet1/nnet2/nnet3 models written here (binary and text, no Kaldi) convert,
and the IR runs in OpenVINO and in the shim with the results of a float64 numpy forward pass."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from converter.runtime.engines import open_engine
from extgen.cli import main
from tests.front import kaldi_nets as kn
from tests.front import kaldi_writer as kw
from tests.front.kaldi_writer import IV

FORMS = [pytest.param(True, id="binary"), pytest.param(False, id="text")]


def convert(model: Path, out: Path, *extra: str) -> Path:
    """The IR with float32 weights: the tests compare the translation with numpy closely, and
    the default f16 weights would blur that."""
    code = main(["convert", "--input_model", str(model), "--output_dir", str(out),
                 "--compress_to_fp16=False", *extra])
    assert code == 0
    return out / f"{model.stem}.xml"


def run_both(xml: Path, x: np.ndarray) -> list[np.ndarray]:
    """[openvino output, shim output] for the one input and the first output."""
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    real = compiled([x])[compiled.output(0)]
    shim = open_engine("shim", xml, "CPU").run({compiled.input(0).any_name: x})
    return [real, next(iter(shim.values()))]


def check(xml: Path, x: np.ndarray, expected: np.ndarray, tol: float = 1e-4) -> None:
    for got in run_both(xml, x):
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def frame(dim: int) -> np.ndarray:
    return kn.RNG.standard_normal((1, dim)).astype(np.float32)


@pytest.mark.parametrize("binary", FORMS)
def test_nnet1_every_stateless_component(tmp_path, binary):
    data, forward, din = kn.nnet1_net(binary)
    model = tmp_path / "dnn.nnet"
    model.write_bytes(data)
    xml = convert(model, tmp_path)
    x = frame(din)
    check(xml, x, forward(x))


@pytest.mark.parametrize("binary", FORMS)
def test_nnet1_convolution_and_max_pooling(tmp_path, binary):
    data, forward, din = kn.nnet1_cnn_net(binary)
    (model := tmp_path / "cnn.nnet").write_bytes(data)
    xml = convert(model, tmp_path)
    x = frame(din)
    check(xml, x, forward(x))


@pytest.mark.parametrize("binary", FORMS)
@pytest.mark.parametrize("mdl", [False, True], ids=["nnet", "mdl"])
def test_nnet2_chain(tmp_path, binary, mdl):
    data, comps, din = kn.nnet2_chain(binary, mdl)
    model = tmp_path / ("final.mdl" if mdl else "dnn.nnet")
    model.write_bytes(data)
    xml = convert(model, tmp_path)
    x = frame(din)
    check(xml, x, kn.chain_reference(comps, x))


def _nnet3_components() -> list:
    return [kn.affine(10, 20, "NaturalGradientAffineComponent"),
            kn.batch_norm(20, 5), kn.nonlinear("SigmoidComponent", 20),
            kn.linear(20, 16), kn.backprop(16, 0.5), kn.nonlinear("TanhComponent", 16),
            kn.fixed_scale(16), kn.dropout(16), kn.spec_augment(16),
            kn.nonlinear("NoOpComponent", 16), kn.product(8), kn.tdnn0(8, 15),
            kn.lstm_nonlinearity(3), kn.affine(6, 7), kn.nonlinear("LogSoftmaxComponent", 7)]


@pytest.mark.parametrize("binary", FORMS)
@pytest.mark.parametrize("mdl", [False, True], ids=["raw", "mdl"])
def test_nnet3_every_stateless_component(tmp_path, binary, mdl):
    comps = _nnet3_components()
    model = tmp_path / ("final.mdl" if mdl else "final.raw")
    model.write_bytes(kn.nnet3_chain(comps, 10, binary, mdl))
    xml = convert(model, tmp_path)  # .raw found by its leading <Nnet3>
    x = frame(10)
    check(xml, x, kn.chain_reference(comps, x))


@pytest.mark.parametrize("binary", FORMS)
def test_nnet3_descriptors(tmp_path, binary):
    """Append, Sum, Scale, ReplaceIndex, IfDefined, Offset 0 and a dim-range node."""
    a, b, c = kn.affine(6, 4), kn.affine(6, 4), kn.affine(10, 3)
    config = [
        "input-node name=input dim=6",
        "component-node name=a component=a input=input",
        "component-node name=b component=b input=ReplaceIndex(input, t, 0)",
        "dim-range-node name=head input-node=b dim-offset=1 dim=2",
        "component-node name=c component=c input=Append(Sum(a, Scale(0.5, b)), "
        "IfDefined(Offset(a, 0)), head)",
        "output-node name=output input=c objective=linear",
    ]
    named = [(n, t, items) for n, (t, items, _) in zip("abc", (a, b, c))]
    model = tmp_path / "desc.raw"
    model.write_bytes(kw.nnet3(config, named, binary))
    xml = convert(model, tmp_path, "--framework", "kaldi")
    x = frame(6)
    ya, yb = a[2](x.astype(np.float64)), b[2](x.astype(np.float64))
    check(xml, x, c[2](np.concatenate([ya + 0.5 * yb, ya, yb[:, 1:3]], axis=1)))


@pytest.mark.parametrize("binary", FORMS)
def test_nnet3_const_descriptor(tmp_path, binary):
    """Const(value, dim): a constant vector appended to the input (the legacy MO refused
    it), for a batch of 2 streams."""
    a = kn.affine(9, 4)
    config = ["input-node name=input dim=6",
              "component-node name=a component=a input=Append(input, Const(0.5, 3))",
              "output-node name=output input=a objective=linear"]
    (model := tmp_path / "const.raw").write_bytes(kw.nnet3(config, [("a", *a[:2])], binary))
    xml = convert(model, tmp_path, "--framework", "kaldi", "-b", "2")
    x = kn.RNG.standard_normal((2, 6)).astype(np.float32)
    check(xml, x, a[2](np.concatenate([x, np.full((2, 3), 0.5)], axis=1)))


@pytest.mark.parametrize("descriptor", ["Round(input, 2)", "Switch(input, Offset(input, -1))",
                                        "Failover(Offset(input, -1), input)"])
def test_nnet3_descriptors_mo_refused_give_one_line(tmp_path, capsys, descriptor):
    """Round, Switch and Failover pick frames by the time index, which a one-frame-per-call
    IR has no counter for: refused in one line, as the legacy MO refused them."""
    a = kn.affine(6, 4)
    config = ["input-node name=input dim=6",
              f"component-node name=a component=a input={descriptor}",
              "output-node name=output input=a objective=linear"]
    (model := tmp_path / "desc.raw").write_bytes(kw.nnet3(config, [("a", *a[:2])], True))
    assert main(["convert", "--input_model", str(model), "--framework", "kaldi",
                 "--output_dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    name = descriptor.split("(")[0]
    assert len(err) == 1 and f"{name}() is not supported, as in the legacy MO" in err[0]


@pytest.mark.parametrize("cut", [3, 40, 200, -7])
def test_truncated_model_gives_one_line(tmp_path, capsys, cut):
    data, _, _ = kn.nnet2_chain(True)
    model = tmp_path / "cut.nnet"
    model.write_bytes(data[:cut])
    assert main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cut.nnet" in err[0]


def test_not_a_kaldi_model(tmp_path, capsys):
    model = tmp_path / "junk.nnet"
    model.write_bytes(b"\0B<Foo> \x04\x01\x00\x00\x00")
    assert main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path)]) == 2
    assert "not a Kaldi nnet model" in capsys.readouterr().err


def _scored_mdl(tmp_path: Path, last: str, priors: np.ndarray) -> tuple[Path, list]:
    comps = [kn.affine(10, 7), kn.nonlinear(last, 7)]
    model = tmp_path / "final.mdl"
    model.write_bytes(kn.nnet3_chain(comps, 10, True, mdl=True, priors=priors))
    return model, comps


def test_counts_from_mdl_priors_are_subtracted_from_the_output(tmp_path):
    priors = np.array([5, 1, 20, 0, 7, 3, 9], np.float32)  # a zero count: MO's huge prior
    model, comps = _scored_mdl(tmp_path, "SoftmaxComponent", priors)
    xml = convert(model, tmp_path, "--counts", "")
    x = frame(10)
    floored = np.maximum(priors.astype(np.float64), 1.00000001e-10)
    log_priors = np.log(floored / floored.sum())
    log_priors[3] += np.finfo(np.float32).max / 2
    check(xml, x, kn.chain_reference(comps, x) - log_priors)


def test_remove_output_softmax(tmp_path):
    model, comps = _scored_mdl(tmp_path, "SoftmaxComponent", np.ones(7, np.float32))
    xml = convert(model, tmp_path, "--remove_output_softmax")
    x = frame(10)
    check(xml, x, kn.chain_reference(comps[:1], x))


def test_counts_file_errors_are_one_line(tmp_path, capsys):
    model, _ = _scored_mdl(tmp_path, "SoftmaxComponent", np.ones(7, np.float32))
    counts = tmp_path / "counts.txt"
    counts.write_text("1 2 3\n4 5 6\n")
    args = ["convert", "--input_model", str(model), "--output_dir", str(tmp_path)]
    assert main([*args, "--counts", str(counts)]) == 2
    assert "expected one line of counts" in capsys.readouterr().err
    raw = tmp_path / "plain.raw"
    raw.write_bytes(kn.nnet3_chain([kn.affine(10, 7)], 10, True))
    assert main(["convert", "--input_model", str(raw), "--output_dir", str(tmp_path),
                 "--counts", ""]) == 2
    assert "stores no <Priors>" in capsys.readouterr().err


def test_kaldi_flag_on_another_framework_is_refused(tmp_path, relu_add_model, capsys):
    assert main(["convert", "--input_model", str(relu_add_model), "--output_dir",
                 str(tmp_path), "--remove_output_softmax"]) == 2
    assert "--remove_output_softmax is for kaldi models" in capsys.readouterr().err


def run_frames(xml: Path, X: np.ndarray) -> list[np.ndarray]:
    """[openvino, shim] outputs of consecutive calls, one frame each (state kept)."""
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    real = np.stack([request.infer([X[t:t + 1]])[compiled.output(0)] for t in range(len(X))])
    engine, name = open_engine("shim", xml, "CPU"), compiled.input(0).any_name
    shim = np.stack([next(iter(engine.run({name: X[t:t + 1]}).values()))
                     for t in range(len(X))])
    return [real, shim]


STATEFUL = {"tdnn": (kn.tdnn_net, "tdnn.raw", 6), "lstm": (kn.lstm_net, "lstm.raw", 4),
            "nnet1_splice": (kn.nnet1_splice_net, "splice.nnet", 3),
            "nnet1_lstm": (kn.nnet1_lstm_net, "lstm.nnet", 4),
            "nnet1_parallel": (kn.nnet1_parallel_splice_net, "parallel.nnet", 6),
            "nnet2": (kn.nnet2_scored_net, "final.mdl", 4)}


@pytest.mark.parametrize("binary", FORMS)
@pytest.mark.parametrize("net", list(STATEFUL))
def test_stateful_nets_over_20_frames(tmp_path, net, binary):
    build, file_name, din = STATEFUL[net]
    data, reference = build(binary)
    (model := tmp_path / file_name).write_bytes(data)
    xml = convert(model, tmp_path, "--framework", "kaldi")
    assert "ReadValue" in xml.read_text() and "Assign" in xml.read_text()
    X = kn.RNG.standard_normal((20, din)).astype(np.float32)
    expected = reference(X)
    for got in run_frames(xml, X):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("net", list(STATEFUL))
def test_remove_memory_gives_state_as_inputs_and_outputs(tmp_path, net):
    """Each state is inputs 'Parameter_<i>_for_<var>'; its new value the output
    'Result_for_<var>/strided_slice', fed back by the caller (MO's layout,
    test_kaldi_mo_layout.py): the same outputs as the stateful IR, for 2 streams."""
    build, file_name, din = STATEFUL[net]
    data, reference = build(True)
    (model := tmp_path / file_name).write_bytes(data)
    xml = convert(model, tmp_path, "--framework", "kaldi", "--remove_memory", "-b", "2")
    assert "ReadValue" not in xml.read_text()
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    states = {p.any_name: np.zeros(tuple(p.shape), np.float32) for p in compiled.inputs
              if "_for_" in p.any_name}
    (frame_input,) = [p.any_name for p in compiled.inputs if p.any_name not in states]
    assert states and len(compiled.outputs) == len({n.split("_for_")[1] for n in states}) + 1
    X = kn.RNG.standard_normal((20, 2, din)).astype(np.float32)
    got = []
    for t in range(len(X)):
        result = compiled({frame_input: X[t], **states})
        got.append(result[compiled.output(len(compiled.outputs) - 1)])
        states = {s: result[compiled.output(f"Result_for_{s.split('_for_', 1)[1]}/strided_slice")]
                  for s in states}
    for stream in range(2):
        np.testing.assert_allclose(np.stack(got)[:, stream:stream + 1],
                                   reference(X[:, stream]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("binary", FORMS)
def test_corrupt_models_fail_in_one_line(tmp_path, capsys, binary):
    """Cut or flip bytes of each kind of model: a clean conversion, or exit 2 with one line."""
    rng = np.random.default_rng(3)
    sources = [kn.nnet1_lstm_net(binary)[0], kn.nnet2_chain(binary, True)[0],
               kn.tdnn_net(binary)[0], kn.nnet3_chain(_nnet3_components(), 10, binary),
               kn.nnet1_parallel_splice_net(binary)[0], kn.lstm_net(binary)[0]]
    failures = 0
    for k, data in enumerate(sources):
        for i in range(12):
            if i % 2:
                variant = data[:rng.integers(1, len(data))]
            else:
                flipped = bytearray(data)
                flipped[rng.integers(0, len(data))] = rng.integers(0, 256)
                variant = bytes(flipped)
            (model := tmp_path / f"m{k}_{i}.raw").write_bytes(variant)
            state = ["--remove_memory"] if i % 4 < 2 else []  # MO's state layout too
            code = main(["convert", "--input_model", str(model), "--framework", "kaldi",
                         "--output_dir", str(tmp_path / "out"), *state])
            err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
            assert code in (0, 2) and (code == 0 or len(err) == 1), (code, err)
            failures += code == 2
    assert failures >= 36  # every cut fails


@pytest.mark.parametrize("state", [[], ["--remove_memory"]])
def test_implausible_time_offset_gives_one_line(tmp_path, capsys, state):
    """An offset no acoustic model has (a corrupt byte in <TimeOffsets>) is refused before
    it builds thousands of variables."""
    kind, items, _ = kn.tdnn0(6, 4)
    items = [IV([0, 1 << 24]) if isinstance(v, IV) else v for v in items]
    items = [kn.w(4, 12) if isinstance(v, np.ndarray) and v.ndim == 2 else v for v in items]
    (model := tmp_path / "tdnn.raw").write_bytes(kn.nnet3_chain([(kind, items, None)], 6, True))
    assert main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path),
                 *state]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "time offsets look corrupt" in err[0]


@pytest.mark.parametrize("binary", FORMS)
def test_nnet2_scale_and_bias_components(tmp_path, binary):
    """ScaleComponent, FixedBiasComponent, NaturalGradientPerElementScaleComponent, and
    SpliceComponent written with <LeftContext>/<RightContext> 0."""
    bias, scales = kn.w(5), kn.w(5)
    comps = [("SpliceComponent", ["<InputDim>", kw.I(5), "<LeftContext>", kw.I(0),
                                  "<RightContext>", kw.I(0)], lambda x: x),
             ("ScaleComponent", ["<Dim>", kw.I(5), "<Scale>", kw.F(-2.0)], lambda x: -2 * x),
             ("FixedBiasComponent", ["<Bias>", bias], lambda x: x + bias),
             ("NaturalGradientPerElementScaleComponent",
              ["<LearningRate>", kw.F(0.001), "<Params>", scales], lambda x: x * scales),
             kn.nonlinear("TanhComponent", 5)]
    model = tmp_path / "scales.nnet"
    model.write_bytes(kw.nnet2([(t, items) for t, items, _ in comps], binary))
    xml = convert(model, tmp_path)
    x = frame(5)
    check(xml, x, kn.chain_reference(comps, x))


@pytest.mark.parametrize("binary", FORMS)
@pytest.mark.parametrize("p", [1.0, 2.0, 3.5])
def test_nnet2_pnorm(tmp_path, binary, p):
    """PnormComponent: the p-norm of each group of 4 consecutive inputs, |x| taken first."""
    comps = [kn.normalize(12), kn.affine(12, 16), kn.pnorm(16, 4, p)]
    (model := tmp_path / "pnorm.nnet").write_bytes(
        kw.nnet2([(t, items) for t, items, _ in comps], binary))
    xml = convert(model, tmp_path, "--input_shape", "[3,12]")
    x = kn.RNG.standard_normal((3, 12)).astype(np.float32)
    check(xml, x, kn.chain_reference(comps, x))


@pytest.mark.parametrize("net", ["tdnn", "nnet1_lstm"])
def test_batch_of_streams(tmp_path, net):
    """--input_shape [3, dim]: each call takes one frame of 3 independent streams, each with
    its own state (MO's batch for Kaldi)."""
    build, file_name, din = STATEFUL[net]
    data, reference = build(True)
    (model := tmp_path / file_name).write_bytes(data)
    xml = convert(model, tmp_path, "--framework", "kaldi", "--input_shape", f"[3,{din}]")
    X = kn.RNG.standard_normal((20, 3, din)).astype(np.float32)
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    real = np.stack([request.infer([X[t]])[compiled.output(0)] for t in range(len(X))])
    engine, name = open_engine("shim", xml, "CPU"), compiled.input(0).any_name
    shim = np.stack([next(iter(engine.run({name: X[t]}).values())) for t in range(len(X))])
    for got in (real, shim):
        for stream in range(3):
            np.testing.assert_allclose(got[:, stream:stream + 1], reference(X[:, stream]),
                                       rtol=1e-4, atol=1e-5)
