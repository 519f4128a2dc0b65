"""LSTMCell-4, GRUCell-3 and RNNCell-0 (converter.ops.recurrent.cells) against OpenVINO's CPU
plugin running the same op, and their shape inference."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset4 as ops
import pytest

from converter.ops.op import Op

RNG = np.random.default_rng(11)
BATCH, INPUT, HIDDEN = 3, 5, 4


def _f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# op: (openvino builder, gates, states, extra attributes)
CELLS = {
    "LSTMCell": (ops.lstm_cell, 4, 2, {}),
    "GRUCell": (ops.gru_cell, 3, 1, {}),
    "GRUCell_lbr": (ops.gru_cell, 3, 1, {"linear_before_reset": True}),
    "RNNCell": (ops.rnn_cell, 1, 1, {"activations": ["tanh"]}),
}


@pytest.mark.parametrize("clip", [0.0, 0.5])
@pytest.mark.parametrize("case", list(CELLS))
def test_cell_matches_openvino(case: str, clip: float):
    build, gates, count, extra = CELLS[case]
    cls = Op.registered_ops[case.split("_")[0]]
    bias = (gates + 1 if extra.get("linear_before_reset") else gates) * HIDDEN
    x, states = _f32(BATCH, INPUT), [_f32(BATCH, HIDDEN) for _ in range(count)]
    w, r, b = _f32(gates * HIDDEN, INPUT), _f32(gates * HIDDEN, HIDDEN), _f32(bias)
    attrs = {**cls.defaults, "hidden_size": HIDDEN, "clip": clip, **extra}
    ours = cls.compute(attrs, [x, *states, w, r, b])
    param = ops.parameter(x.shape, np.float32)
    kwargs = {"clip": clip, **extra}
    if case == "RNNCell":
        kwargs.update(activations_alpha=[], activations_beta=[])
    elif extra:
        kwargs["activations"] = ["sigmoid", "tanh"]
    node = build(param, *map(ops.constant, states), ops.constant(w), ops.constant(r),
                 ops.constant(b), HIDDEN, **kwargs)
    compiled = ov.Core().compile_model(ov.Model(node.outputs(), [param]), "CPU",
                                       {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled({0: x})
    assert len(ours) == count
    for k, got in enumerate(ours):
        np.testing.assert_allclose(got, result[compiled.output(k)], rtol=1e-5, atol=1e-5)


def test_cell_shapes():
    cls = Op.registered_ops["LSTMCell"]
    attrs = {**cls.defaults, "hidden_size": 7}
    assert cls.infer_shapes(attrs, [(2, 5), (2, 7), (2, 7), None, None, None], [None] * 6) == [
        (2, 7), (2, 7)]
