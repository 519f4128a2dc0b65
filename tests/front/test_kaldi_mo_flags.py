"""Every Kaldi flag of the legacy MO 2023.3 (--counts FILE, --counts "" for a .mdl's <Priors>,
--remove_output_softmax, --remove_memory), in every combination, on an nnet1, an nnet2 and an
nnet3 net that ends in a Softmax, against MO's recorded answers (tests/mo_oracle.py): the
same outputs over 10 consecutive frames within 1e-4 (OpenVINO and the shim), or a refusal in
one line (exit 2) where MO refused. Then the counts file forms MO read, and those it refused."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from converter.runtime.engines import open_engine
from extgen.cli import main
from tests import mo_oracle
from tests.front import kaldi_nets as kn
from tests.front import kaldi_writer as kw
from tests.front.test_kaldi import convert, run_frames
from tests.front.test_kaldi_mo import _relative, mo_convert, mo_frames
from tests.front.test_kaldi_mo_layout import _variable

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("kaldi_mo_rng")]

FRAMES = 10


def _nnet3(binary: bool):
    """nnet3 LSTM, Softmax; a .mdl whose <Priors> hold a zero count."""
    priors = kn.RNG.integers(1, 1000, 3).astype(np.float32)
    priors[1] = 0
    return kn.lstm_net(binary, scored=True, priors=priors)


# kind: (builder, file name, input dim, output classes)
NETS = {"nnet1": (kn.nnet1_lstm_net, "lstm.nnet", 4, 5),
        "nnet2": (kn.nnet2_scored_net, "final.mdl", 4, 6),
        "nnet3": (_nnet3, "final.mdl", 4, 3)}
# --counts: none, a counts file, "" (the .mdl's <Priors>)
CASES = [pytest.param(net, counts, remove_softmax, remove_memory,
                      id=f"{net}-counts_{counts}" + "-remove_output_softmax" * remove_softmax
                      + "-remove_memory" * remove_memory)
         for net, counts, remove_softmax, remove_memory
         in itertools.product(NETS, ("none", "file", "priors"), (False, True), (False, True))]


def _counts_file(path: Path, classes: int) -> Path:
    counts = kn.RNG.integers(1, 1000, classes)
    counts[classes // 2] = 0  # MO's huge prior for an unseen class
    path.write_text("[ " + " ".join(str(c) for c in counts) + " ]\n")
    return path


def mo_refusal(model: Path, tmp_path: Path, *extra: str) -> str:
    """MO 2023.3's error lines for model with these flags, which it refused."""
    return mo_oracle.refusal(model, tmp_path / "mo",
                             ["--framework", "kaldi", "--compress_to_fp16=False", *extra])


def extgen_refusal(model: Path, tmp_path: Path, capsys, *extra: str) -> str:
    """extgen's one error line for model with these flags (exit 2)."""
    code = main(["convert", "--input_model", str(model), "--output_dir", str(tmp_path / "eg"),
                 "--framework", "kaldi", *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    return err[0]


def fed_frames(xml: Path, X: np.ndarray, engine: str = "openvino") -> np.ndarray:
    """An IR of --remove_memory over consecutive frames: each state input gets its variable's
    state output of the call before (zeros at first); the outputs that are no state."""
    model = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    states = {p.any_name: _variable(p.any_name) for p in model.inputs if "_for_" in p.any_name}
    (frame,) = [p.any_name for p in model.inputs if p.any_name not in states]
    made = {}
    for i, port in enumerate(model.outputs):
        names = [n for n in port.names if "_for_" in n]
        made[_variable(min(names)) if names else None] = i
    feed = {n: np.zeros(tuple(model.input(n).shape), np.float32) for n in states}
    shim = open_engine("shim", xml, "CPU") if engine == "shim" else None
    got = []
    for x in X:
        feed[frame] = x[None]
        out = list((shim.run(feed) if shim else model(feed)).values())
        got.append(out[made[None]])
        feed.update({n: out[made[var]] for n, var in states.items()})
    return np.stack(got)


@pytest.mark.parametrize(("net", "counts", "remove_softmax", "remove_memory"), CASES)
def test_kaldi_flags_match_mo(tmp_path, capsys, net, counts, remove_softmax, remove_memory):
    build, file_name, din, classes = NETS[net]
    data, reference = build(True)
    (model := tmp_path / file_name).write_bytes(data)
    flags = {"none": [], "priors": ["--counts", ""],
             "file": ["--counts", str(_counts_file(tmp_path / "counts.txt", classes))]}[counts]
    flags += ["--remove_output_softmax"] * remove_softmax + ["--remove_memory"] * remove_memory
    if counts == "priors" and net != "nnet3":  # only an nnet3 .mdl stores <Priors>
        assert "'priors'" in mo_refusal(model, tmp_path, *flags)
        assert "stores no <Priors>" in extgen_refusal(model, tmp_path, capsys, *flags)
        return
    X = kn.RNG.standard_normal((FRAMES, din)).astype(np.float32)
    ours = convert(model, tmp_path / "extgen", "--framework", "kaldi", *flags)
    theirs = mo_convert(model, tmp_path / "mo", *flags)
    if remove_memory:
        want = fed_frames(theirs, X)
        got = [fed_frames(ours, X), fed_frames(ours, X, "shim")]
    else:
        want = mo_frames(theirs, X, tmp_path)
        got = run_frames(ours, X)
    if not flags:
        np.testing.assert_allclose(want, reference(X), rtol=1e-4, atol=1e-5)
    worst = 0.0
    for values in got:
        assert values.shape == want.shape
        np.testing.assert_allclose(values, want, rtol=1e-4, atol=1e-5)
        worst = max(worst, _relative(values, want))
    print(f"{net} {' '.join(f for f in flags if '/' not in f)}: max relative difference "
          f"from MO {worst:.1e}")


def _dnn(tmp_path: Path) -> Path:
    """nnet1 AffineTransform, Sigmoid, AffineTransform, Softmax of 10 classes."""
    data, _, _ = kn.nnet1_net(True, mo=True)
    (model := tmp_path / "dnn.nnet").write_bytes(data)
    return model


READ_FORMS = {"brackets": "[ 3 0 9 1 1e4 5 2 7 8 9 ]\n", "plain": "3 0 9 1 10000 5 2 7 8 9\n",
              "tight": "[3 0.5 9 1 2.5e3 5 2 7 8 9]", "crlf": "\t3 0 9 1 1e4 5 2 7 8 9  \r\n",
              "negative": "3 -2 9 1 10000 5 2 7 8 9\n", "zeros": "0 0 0 0 0 0 0 0 0 0\n",
              "one count": "5\n"}


@pytest.mark.parametrize("form", list(READ_FORMS))
def test_counts_file_forms_match_mo(tmp_path, form):
    """Brackets or none, any spacing, a count of zero or below (floored, a huge prior), all
    zero, and one count for all classes (MO's broadcast: no shift)."""
    model = _dnn(tmp_path)
    (counts := tmp_path / "counts.txt").write_text(READ_FORMS[form])
    for remove in ((), ("--remove_output_softmax",)):
        flags = ("--counts", str(counts), *remove)
        ours = convert(model, tmp_path / "extgen", "--framework", "kaldi", *flags)
        x = kn.RNG.standard_normal((1, 8)).astype(np.float32)
        want = mo_frames(mo_convert(model, tmp_path / "mo", *flags), x, tmp_path)
        for got in run_frames(ours, x):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


# form: (file text, what MO said, what extgen says)
REFUSED_FORMS = {
    "two lines": ("1 2 3 4 5\n6 7 8 9 10\n", "not able to read counts file",
                  "expected one line of counts, found 2 lines"),
    "empty": ("", "not able to read counts file", "found 0 lines"),
    "words": ("a b c d e f g h i j\n", "Input shapes mismatch for node sub_counts",
              "something other than numbers"),
    "too few": ("1 2 3 4\n", "Input shapes mismatch for node sub_counts",
                "4 counts for an output of 10 classes"),
    "too many": ("1 2 3 4 5 6 7 8 9 10 11 12\n", "Input shapes mismatch for node sub_counts",
                 "12 counts for an output of 10 classes"),
}


@pytest.mark.parametrize("form", list(REFUSED_FORMS))
def test_counts_files_mo_refused_give_one_line(tmp_path, capsys, form):
    text, theirs, ours = REFUSED_FORMS[form]
    model = _dnn(tmp_path)
    (counts := tmp_path / "counts.txt").write_text(text)
    assert theirs in mo_refusal(model, tmp_path, "--counts", str(counts))
    assert ours in extgen_refusal(model, tmp_path, capsys, "--counts", str(counts))


def test_counts_on_a_net_of_two_outputs_is_refused_as_mo_did(tmp_path, capsys):
    """MO: 'Ambiguity in applying counts to several outputs'."""
    affine, first, second = (kn.affine(4, 3), kn.nonlinear("SoftmaxComponent", 3),
                             kn.nonlinear("SoftmaxComponent", 3))
    config = ["input-node name=input dim=4", "component-node name=a component=a input=input",
              "component-node name=s1 component=s1 input=a",
              "component-node name=s2 component=s2 input=a",
              "output-node name=output input=s1 objective=linear",
              "output-node name=output2 input=s2 objective=linear"]
    named = [("a", *affine[:2]), ("s1", *first[:2]), ("s2", *second[:2])]
    (model := tmp_path / "final.mdl").write_bytes(
        kw.nnet3(config, named, True, mdl=True, priors=np.ones(3, np.float32)))
    for counts in ("", str(_counts_file(tmp_path / "counts.txt", 3))):
        assert "Ambiguity in applying counts" in mo_refusal(model, tmp_path, "--counts", counts)
        line = extgen_refusal(model, tmp_path, capsys, "--counts", counts)
        assert "the net has 2 outputs (output, output2)" in line


def test_a_mdl_with_priors_and_no_counts_says_how_to_use_them(tmp_path, caplog):
    """MO warned that a .mdl stores priors it leaves out unless --counts "" is given; so does
    extgen, once."""
    from converter.options import ConvertOptions
    from converter.pipeline import convert as convert_in_process

    data, _ = _nnet3(True)
    (model := tmp_path / "final.mdl").write_bytes(data)
    convert_in_process(ConvertOptions(model, output_dir=tmp_path / "ir", framework="kaldi"))
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == [f'{model} stores <Priors>; to subtract them from the output, as MO did, '
                        'add --counts ""']
