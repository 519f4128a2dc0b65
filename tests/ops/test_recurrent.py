"""ONNX RNN, LSTM and GRU (every direction and layout; sequence_lens given, omitted or empty;
initial states; clip; linear_before_reset; LSTM peepholes, unrolled) through our IR
(RNNSequence/LSTMSequence/GRUSequence)
in real OpenVINO and in the shim, against onnxruntime within 1e-5. onnxruntime runs layout 0
only: a layout-1 model is checked against the layout-0 model on the same data, transposed."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from converter.onnx_backend import ExtgenBackend
from tests.conftest import make_model

SEQ, BATCH, INPUT, HIDDEN = 5, 3, 4, 3
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
DIRECTIONS = ("forward", "reverse", "bidirectional")


def _to(layout: int, x: np.ndarray) -> np.ndarray:
    """A layout-0 tensor ([seq or directions, batch, ...]; Y: [seq, directions, batch, hidden])
    in the given layout."""
    if not layout:
        return x
    return x.transpose(2, 0, 1, 3) if x.ndim == 4 else x.transpose(1, 0, 2)


def _model(op: str, direction: str, layout: int, variant: str, peepholes: bool = False,
           **attrs):
    """variant 'full': B, sequence_lens and initial states are graph inputs; 'bare': X, W, R
    only; 'empty': B, an empty sequence_lens and initial states (as torch exports LSTMs)."""
    rng = np.random.default_rng([GATES[op], DIRECTIONS.index(direction), len(variant)])
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[op]
    weights = {
        "W": rng.uniform(-1, 1, (dirs, g * HIDDEN, INPUT)).astype(np.float32),
        "R": rng.uniform(-1, 1, (dirs, g * HIDDEN, HIDDEN)).astype(np.float32),
        "B": rng.uniform(-1, 1, (dirs, 2 * g * HIDDEN)).astype(np.float32),
    }
    x_shape = [BATCH, SEQ, INPUT] if layout else [SEQ, BATCH, INPUT]
    state_shape = [BATCH, dirs, HIDDEN] if layout else [dirs, BATCH, HIDDEN]
    feeds = {"X": _to(layout, rng.standard_normal([SEQ, BATCH, INPUT]).astype(np.float32))}
    names = ["X", "W", "R"]
    inputs = [("X", TensorProto.FLOAT, x_shape)]
    if variant != "bare":
        states = ["initial_h", "initial_c"][: 2 if op == "LSTM" else 1]
        names += ["B", "seq" if variant == "full" else "", *states]
        for s in states:
            feeds[s] = _to(layout, rng.standard_normal([dirs, BATCH, HIDDEN]).astype(np.float32))
            inputs.append((s, TensorProto.FLOAT, state_shape))
        if variant == "full":
            feeds["seq"] = np.array([SEQ, 2, 4][:BATCH], np.int32)
            inputs.append(("seq", TensorProto.INT32, [BATCH]))
    else:
        weights.pop("B")
    if peepholes:
        names = (names + [""] * 7)[:7] + ["P"]
        weights["P"] = rng.uniform(-1, 1, (dirs, 3 * HIDDEN)).astype(np.float32)
    outs = ["Y", "Y_h", "Y_c"][: 3 if op == "LSTM" else 2]
    node = helper.make_node(op, names, outs, name="rnn", hidden_size=HIDDEN, direction=direction,
                            layout=layout, **attrs)
    model = make_model([node], inputs, [(o, TensorProto.FLOAT, None) for o in outs], weights,
                       opset=14)
    return model, [feeds[i[0]] for i in inputs]


def _check(op: str, direction: str, layout: int, variant: str, **attrs) -> None:
    """attrs: the node's, and peepholes=True for an LSTM with input P."""
    model, feeds = _model(op, direction, layout, variant, **attrs)
    reference, ref_feeds = _model(op, direction, 0, variant, **attrs)
    session = ort.InferenceSession(reference.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    expected = [_to(layout, y) for y in session.run(None, dict(zip(names, ref_feeds)))]
    for engine in ("openvino", "shim"):
        got = ExtgenBackend.prepare(model, engine=engine).run(feeds)
        assert len(got) == len(expected)
        for e, g in zip(expected, got):
            assert g.shape == e.shape, engine
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=engine)


@pytest.mark.parametrize("variant", ["full", "bare", "empty"])
@pytest.mark.parametrize("layout", [0, 1])
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("op", list(GATES))
def test_recurrent_matches_onnxruntime(op: str, direction: str, layout: int, variant: str):
    _check(op, direction, layout, variant)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_gru_linear_before_reset(direction: str) -> None:
    _check("GRU", direction, 0, "full", linear_before_reset=1)


@pytest.mark.parametrize("op", list(GATES))
def test_clip_and_activations(op: str) -> None:
    acts = {"RNN": ["Relu"], "GRU": ["Sigmoid", "Relu"], "LSTM": ["Sigmoid", "Tanh", "Relu"]}
    _check(op, "bidirectional", 1, "full", clip=0.5, activations=acts[op] * 2)


@pytest.mark.parametrize("variant", ["full", "bare", "empty"])
@pytest.mark.parametrize("layout", [0, 1])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_lstm_peepholes_unrolled(direction: str, layout: int, variant: str) -> None:
    _check("LSTM", direction, layout, variant, peepholes=True, clip=2.0)


def test_peepholes_need_a_static_sequence_length(tmp_path, capsys) -> None:
    import onnx

    from tests.front.test_onnx_errors import convert_error

    model, _ = _model("LSTM", "forward", 0, "bare", peepholes=True)
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "seq"
    onnx.save(model, tmp_path / "m.onnx")
    line = convert_error(capsys, tmp_path / "m.onnx")
    assert "LSTM node 'rnn'" in line and "static sequence length" in line
