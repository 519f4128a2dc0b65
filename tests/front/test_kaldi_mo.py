"""Kaldi oracle: the legacy Model Optimizer (openvino-dev 2023.3, its answers recorded in
tests/data/mo_oracle: tests/mo_oracle.py) converts the same binary models; its IR and extgen's
run in OpenVINO (extgen's in the shim too) on the same frame, and agree within 1e-4 (and with
numpy)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from tests import mo_oracle
from tests.front import kaldi_nets as kn
from tests.front.test_kaldi import STATEFUL, _nnet3_components, convert, frame, run_both, run_frames

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("kaldi_mo_rng")]


def mo_convert(model: Path, out: Path, *extra: str) -> Path:
    return mo_oracle.convert(model, out, ["--framework", "kaldi", "--compress_to_fp16=False",
                                          *extra])


def run_mo(xml: Path, x: np.ndarray) -> np.ndarray:
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled([x])[compiled.output(0)]


def compare(model: Path, tmp_path: Path, din: int, expected=None, extra=()) -> float:
    """The largest relative difference of extgen's outputs (OpenVINO, shim) from MO's."""
    ours = convert(model, tmp_path / "extgen", "--framework", "kaldi", *extra)
    theirs = mo_convert(model, tmp_path / "mo", *extra)
    x = frame(din)
    reference = run_mo(theirs, x)
    if expected is not None:
        np.testing.assert_allclose(reference, expected(x), rtol=1e-4, atol=1e-5)
    worst = 0.0
    for got in run_both(ours, x):
        assert got.shape == reference.shape
        np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-5)
        worst = max(worst, _relative(got, reference))
    print(f"{model.name} {' '.join(extra)}: max relative difference from MO {worst:.1e}")
    return worst


def _relative(got: np.ndarray, reference: np.ndarray) -> float:
    return float(np.max(np.abs(got - reference) / (np.abs(reference) + 1e-6)))


def test_nnet1_matches_mo(tmp_path):
    data, forward, din = kn.nnet1_net(True, mo=True)
    (model := tmp_path / "dnn.nnet").write_bytes(data)
    compare(model, tmp_path, din, forward)


def test_nnet1_cnn_matches_mo(tmp_path):
    data, forward, din = kn.nnet1_cnn_net(True)
    (model := tmp_path / "cnn.nnet").write_bytes(data)
    compare(model, tmp_path, din, forward)


def test_nnet2_mdl_matches_mo(tmp_path):
    data, comps, din = kn.nnet2_chain(True, mdl=True, splice=False)
    (model := tmp_path / "final.mdl").write_bytes(data)
    compare(model, tmp_path, din, lambda x: kn.chain_reference(comps, x))


def test_nnet3_every_stateless_component_matches_mo(tmp_path):
    comps = _nnet3_components()
    (model := tmp_path / "final.raw").write_bytes(kn.nnet3_chain(comps, 10, True))
    compare(model, tmp_path, 10, lambda x: kn.chain_reference(comps, x))


@pytest.mark.parametrize("last", ["SoftmaxComponent", "LogSoftmaxComponent"])
@pytest.mark.parametrize("flags", [("--counts", ""), ("--remove_output_softmax",),
                                   ("--counts", "", "--remove_output_softmax")],
                         ids=["counts", "remove", "both"])
def test_output_flags_match_mo(tmp_path, last, flags):
    comps = [kn.affine(10, 7), kn.nonlinear(last, 7)]
    priors = kn.RNG.uniform(1, 100, 7).astype(np.float32)
    (model := tmp_path / "final.mdl").write_bytes(
        kn.nnet3_chain(comps, 10, True, mdl=True, priors=priors))
    compare(model, tmp_path, 10, extra=flags)


def test_counts_file_matches_mo(tmp_path):
    comps = [kn.affine(10, 7), kn.nonlinear("SigmoidComponent", 7)]
    (model := tmp_path / "final.raw").write_bytes(kn.nnet3_chain(comps, 10, True))
    counts = tmp_path / "counts.txt"
    counts.write_text("[ " + " ".join(str(v) for v in [3, 0, 9, 1, 1e4, 5, 2]) + " ]\n")
    compare(model, tmp_path, 10, extra=("--counts", str(counts)))


def mo_frames(xml: Path, X: np.ndarray, tmp_path: Path) -> np.ndarray:
    """MO's IR on consecutive frames in MO's own OpenVINO (2023.3): today's OpenVINO runs
    MO's splice layout wrongly (the issue's finding)."""
    return mo_oracle.run_frames(xml, X, tmp_path)


@pytest.mark.parametrize("net", ["tdnn", "lstm", "nnet1_lstm"])
def test_stateful_nets_match_mo_over_20_frames(tmp_path, net):
    build, file_name, din = STATEFUL[net]
    data, reference = build(True)
    (model := tmp_path / file_name).write_bytes(data)
    ours = convert(model, tmp_path / "extgen", "--framework", "kaldi")
    X = kn.RNG.standard_normal((20, din)).astype(np.float32)
    theirs = mo_frames(mo_convert(model, tmp_path / "mo"), X, tmp_path)
    np.testing.assert_allclose(theirs, reference(X), rtol=1e-4, atol=1e-5)
    worst = 0.0
    for got in run_frames(ours, X):
        np.testing.assert_allclose(got, theirs, rtol=1e-4, atol=1e-5)
        worst = max(worst, _relative(got, theirs))
    print(f"{net}, 20 frames: max relative difference from MO {worst:.1e}")


def test_batch_of_streams_matches_mo(tmp_path):
    data, _ = kn.tdnn_net(True)
    (model := tmp_path / "tdnn.raw").write_bytes(data)
    flags = ("--input_shape", "[3,6]")
    ours = convert(model, tmp_path / "extgen", "--framework", "kaldi", *flags)
    X = kn.RNG.standard_normal((20, 3, 6)).astype(np.float32)
    theirs = mo_frames(mo_convert(model, tmp_path / "mo", *flags), X, tmp_path)
    compiled = ov.Core().compile_model(str(ours), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    got = np.stack([request.infer([X[t]])[compiled.output(0)] for t in range(len(X))])
    np.testing.assert_allclose(got, theirs, rtol=1e-4, atol=1e-5)
    print(f"tdnn, 3 streams x 20 frames: max relative difference from MO "
          f"{_relative(got, theirs):.1e}")
