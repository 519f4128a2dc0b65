"""OpenVINO 2026's CPU plugin stores the wrong value when an Assign is fed straight by a
Parameter: the variable shares the input's buffer, so the next ReadValue gives the current
frame, not the previous one. The Kaldi frontend copies each stored value through Concat and
Slice (converter/front/kaldi/builder.py, DelayLines). When this test fails, OpenVINO has fixed
the bug and the copy can go."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset6 as op6
import openvino.opset8 as op8
from openvino.op.util import Variable, VariableInfo


def _delay_model(copy: bool) -> ov.Model:
    """5 ops: Parameter -> Assign(v); Const -> ReadValue(v) -> Result (the copy adds 2)."""
    info = VariableInfo()
    info.data_shape, info.data_type, info.variable_id = ov.PartialShape([1, 3]), ov.Type.f32, "v"
    var = Variable(info)
    x = op8.parameter([1, 3], np.float32)
    stored = x
    if copy:
        stored = op8.slice(op8.concat([x, x], 1), np.array([0]), np.array([3]), np.array([1]),
                           np.array([1]))
    read = op6.read_value(op8.constant(np.zeros((1, 3), np.float32)), var)
    return ov.Model([op8.result(read)], [op6.assign(stored, var)], [x])


def _previous_frames(model: ov.Model, frames: np.ndarray) -> np.ndarray:
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    return np.stack([request.infer([f[None]])[compiled.output(0)][0] for f in frames])


def test_assign_fed_by_a_parameter_stores_the_wrong_frame():
    frames = np.arange(12, dtype=np.float32).reshape(4, 3) + 1
    got = _previous_frames(_delay_model(copy=False), frames)
    assert not np.array_equal(got[1:], frames[:-1]), (
        "OpenVINO now delays a Parameter through ReadValue/Assign correctly: drop the "
        "Concat/Slice copy in DelayLines._store")


def test_the_copied_form_delays_by_one_frame():
    frames = np.arange(12, dtype=np.float32).reshape(4, 3) + 1
    got = _previous_frames(_delay_model(copy=True), frames)
    np.testing.assert_array_equal(got, np.concatenate([np.zeros((1, 3)), frames[:-1]]))
