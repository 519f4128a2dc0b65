"""--remove_memory and --batch against the legacy MO 2023.3 (recorded: tests/mo_oracle.py):
extgen's IR has MO's state inputs and outputs (names, count, shapes, and order where MO's is
reproducible), and fed the same inputs (a frame and the states MO's IR gave back the call
before) it gives the same outputs, state outputs included, in OpenVINO and in the shim, for 20
consecutive frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from converter.runtime.engines import open_engine
from tests.front import kaldi_nets as kn
from tests.front.test_kaldi import STATEFUL, convert
from tests.front.test_kaldi_mo import _relative, mo_convert, mo_frames

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("kaldi_mo_rng")]


def _compile(xml: Path) -> ov.CompiledModel:
    return ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})


def _ports(ports) -> list[tuple[frozenset, tuple]]:
    return [(frozenset(p.names), tuple(p.partial_shape.to_shape())) for p in ports]


def _variable(name: str) -> str:
    """Parameter_<i>_for_<var>[:0] or Result_for_<var>/strided_slice[:0] -> <var>."""
    return name.removesuffix(":0").removesuffix("/strided_slice").split("_for_", 1)[1]


def _variables(model: ov.CompiledModel) -> dict[str, tuple]:
    """Each state variable: (its inputs' shape, how many inputs)."""
    found: dict[str, list] = {}
    for port in model.inputs:
        if "_for_" in port.any_name:
            found.setdefault(_variable(port.any_name), []).append(tuple(port.shape))
    return {v: (shapes[0], len(shapes)) for v, shapes in found.items()}


def _renaming(ours: ov.CompiledModel, theirs: ov.CompiledModel) -> dict[str, str]:
    """MO's variable -> ours. MO numbers its splice windows (id, id_1, ...) in an order that
    changes from run to run (it follows Python's hash seed), so windows pair by their shapes;
    every other variable keeps its name."""
    mine = {sig: v for v, sig in _variables(ours).items()}
    assert len(mine) == len(_variables(ours))  # the shapes tell the variables apart
    return {v: mine[sig] for v, sig in _variables(theirs).items()}


# MO put the nnet1 LSTM's output state before the frame input, and its three cell inputs
# in the order 2, 0, 1: there the test checks the set of state inputs, elsewhere the order
_ORDERED = {"tdnn": True, "lstm": True, "nnet1_lstm": False}


@pytest.mark.parametrize("net", ["tdnn", "lstm", "nnet1_lstm"])
def test_remove_memory_layout_and_outputs_match_mo(tmp_path, net):
    build, file_name, din = STATEFUL[net]
    data, reference = build(True)
    (model := tmp_path / file_name).write_bytes(data)
    ours_xml = convert(model, tmp_path / "extgen", "--framework", "kaldi", "--remove_memory")
    ours, theirs = _compile(ours_xml), _compile(mo_convert(model, tmp_path / "mo",
                                                           "--remove_memory"))
    rename = _renaming(ours, theirs)

    def as_ours(name: str) -> str:
        var = _variable(name)
        return name.replace(f"_for_{var}", f"_for_{rename[var]}").removesuffix(":0")

    states = [p.any_name for p in theirs.inputs if "_for_" in p.any_name]
    (frame_name,) = [p.any_name for p in theirs.inputs if p.any_name not in states]
    mo_in = [(frozenset(as_ours(n) for n in names), shape) for names, shape
             in _ports(theirs.inputs) if frame_name not in names]
    our_in = [(frozenset(n.removesuffix(":0") for n in names), shape) for names, shape
              in _ports(ours.inputs)]
    assert our_in[0] == ({frame_name.removesuffix(":0")}, (1, din))  # the frame comes first
    if _ORDERED[net]:
        assert our_in[1:] == mo_in
    else:
        def unordered(ports):
            return sorted((sorted(names), shape) for names, shape in ports)

        assert unordered(our_in[1:]) == unordered(mo_in)
    # the state outputs first, sorted by name (as MO sorts them), then the output
    mo_out, our_out = _ports(theirs.outputs), _ports(ours.outputs)
    for outs in (mo_out, our_out):
        first = [min(n for n in names if "_for_" in n) for names, _ in outs[:-1]]
        assert first == sorted(first)
    # (a state output may carry its source's tensor name too: MO's 'lstm.c:0')
    assert {(frozenset(as_ours(n) for n in names if "_for_" in n), s)
            for names, s in mo_out[:-1]} == {
        (frozenset(n.removesuffix(":0") for n in names if "_for_" in n), s)
        for names, s in our_out[:-1]}
    assert our_out[-1][1] == mo_out[-1][1] and mo_out[-1][0] <= our_out[-1][0]  # MO's name

    X = kn.RNG.standard_normal((20, din)).astype(np.float32)
    feed = {n: np.zeros(theirs.input(n).shape, np.float32) for n in states}
    shim = open_engine("shim", ours_xml, "CPU")
    worst, outputs = 0.0, []
    names = [min(n.removesuffix(":0") for n in o.names if "_for_" in n)
             for o in ours.outputs[:-1]] + ["output"]
    for t in range(len(X)):
        feed[frame_name] = X[t:t + 1]
        want = {min(o.names, key=lambda n: "_for_" not in n): v
                for o, v in zip(theirs.outputs, theirs(feed).values())}
        want = {as_ours(n) if "_for_" in n else "output": v for n, v in want.items()}
        ours_feed = {as_ours(n) if n in states else n.removesuffix(":0"): v
                     for n, v in feed.items()}
        for got in (ours(ours_feed).values(), shim.run(ours_feed).values()):
            for name, value in zip(names, got, strict=True):
                np.testing.assert_allclose(value, want[name], rtol=1e-4, atol=1e-5)
                worst = max(worst, _relative(value, want[name]))
        outputs.append(want["output"])
        feed.update({n: want[f"Result_for_{rename[_variable(n)]}/strided_slice"]
                     for n in states})
    np.testing.assert_allclose(np.stack(outputs), reference(X), rtol=1e-4, atol=1e-5)
    print(f"{net} --remove_memory, 20 frames: max relative difference from MO {worst:.1e}")


@pytest.mark.parametrize("flag", ["-b", "--batch"])
@pytest.mark.parametrize("net", ["tdnn", "nnet1_lstm"])
def test_batch_matches_mo(tmp_path, net, flag):
    """-b N on a Kaldi model (MO): the first dim of the input becomes N, N streams each with
    its own state; 20 frames of 3 streams, MO's IR run in its own OpenVINO."""
    build, file_name, din = STATEFUL[net]
    data, reference = build(True)
    (model := tmp_path / file_name).write_bytes(data)
    ours = _compile(convert(model, tmp_path / "extgen", "--framework", "kaldi", flag, "3"))
    assert _ports(ours.inputs)[0][1] == (3, din)
    X = kn.RNG.standard_normal((20, 3, din)).astype(np.float32)
    theirs = mo_frames(mo_convert(model, tmp_path / "mo", flag, "3"), X, tmp_path)
    request = ours.create_infer_request()
    got = np.stack([request.infer([X[t]])[ours.output(0)] for t in range(len(X))])
    np.testing.assert_allclose(got, theirs, rtol=1e-4, atol=1e-5)
    for stream in range(3):
        np.testing.assert_allclose(got[:, stream:stream + 1], reference(X[:, stream]),
                                   rtol=1e-4, atol=1e-5)
    print(f"{net} {flag} 3, 20 frames: max relative difference from MO "
          f"{_relative(got, theirs):.1e}")
